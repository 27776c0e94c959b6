import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { Store } from '../store/index.js';

/** What every verb needs. Built once by createMailroom. */
export interface MailboxDeps {
  store: Store;
  config: Config;
  bus: EventBus;
  log: Logger;
}
