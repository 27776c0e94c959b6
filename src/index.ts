export { createMailroom } from './mailroom.js';
export type { Mailroom, MailroomOptions, BootstrapResult } from './mailroom.js';
export type { Worker } from './worker.js';
export { loadConfig, settings } from './config.js';
export type { Config } from './config.js';
