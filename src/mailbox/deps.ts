import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { Store } from '../store/index.js';
import type { RemoteBackends } from './remote.js';
import type { IngestWriter } from './ingest/ingest-writer.js';
import type { ParsePool } from './ingest/parse-pool.js';
import type { EmailWaiters } from './events/wait-for-email.js';
import type { ConnectLookups } from './connect/lookups.js';

/** What every verb needs. Built once by createMailroom. */
export interface MailboxDeps {
  store: Store;
  config: Config;
  bus: EventBus;
  log: Logger;
  /** Inbound filing on its own thread; absent for in-memory databases (then it runs inline). */
  ingest?: IngestWriter;
  /** Parse threads for inbound mail and attachment reads; absent (parse inline) outside the server. */
  parser?: ParsePool;
  /** The IMAP side of connected inboxes; absent where no sync runs (admin CLI). */
  remote?: RemoteBackends;
  /** Requests waiting for mail (`?wait=`, MCP wait_for_email); absent where no server runs. */
  waiters?: EmailWaiters;
  /** Provider table, DNS and HTTP for connecting mailboxes; the real ones when absent (tests replace them). */
  lookups?: Partial<ConnectLookups>;
}
