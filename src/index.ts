export { createMailroom } from './mailroom.js';
export type { Mailroom, MailroomOptions, BootstrapResult, Worker } from './mailroom.js';
export { loadConfig, settings } from './config.js';
export type { Config } from './config.js';
