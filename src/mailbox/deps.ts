import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { Store } from '../store/index.js';
import type { RemoteBackends } from './remote.js';
import type { Ingest } from './ingest/receive.js';
import type { Parser } from './ingest/parse-message.js';
import type { Waiters } from './events/wait-for-email.js';
import type { ConnectLookups } from './connect/lookups.js';

/**
 * What every verb needs, built by buildDeps (runtime.ts) for the server, the CLI and the ingest
 * thread alike: every member is there, a null object where a mode has none, and none changes
 * after it is built.
 */
export interface MailboxDeps {
  readonly store: Store;
  readonly config: Config;
  readonly bus: EventBus;
  readonly log: Logger;
  /** Files inbound mail: on the ingest thread (the server on a file or PostgreSQL), else inline. */
  readonly ingest: Ingest;
  /** Parses inbound mail and attachment reads: on parse threads (the server), else inline. */
  readonly parser: Parser;
  /** The IMAP side of connected inboxes; where no sync runs, one that refuses (422). */
  readonly remote: RemoteBackends;
  /** Requests waiting for mail (`?wait=`, MCP wait_for_email); outside the server they answer at once. */
  readonly waiters: Waiters;
  /** Provider table, DNS and HTTP for connecting mailboxes: the real ones unless a test gave its own. */
  readonly lookups: ConnectLookups;
}
