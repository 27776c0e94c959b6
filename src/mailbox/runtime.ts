import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { EventBus } from '../events/bus.js';
import type { Store } from '../store/index.js';
import { noSync } from './backend.js';
import type { ConnectLookups } from './connect/lookups.js';
import { connectLookups } from './connect/lookups.js';
import type { MailboxDeps } from './deps.js';
import type { Waiters } from './events/wait-for-email.js';
import { EmailWaiters, waitersAtOnce } from './events/wait-for-email.js';
import { IngestWriter } from './ingest/ingest-writer.js';
import { inlineParser, threadParser } from './ingest/parse-message.js';
import { ParsePool } from './ingest/parse-pool.js';
import { inlineIngest } from './ingest/receive.js';
import type { RemoteBackends } from './remote.js';

export interface DepsParts {
  /**
   * Who runs the verbs: the server (ingest and parse threads as the settings say, a waiting
   * room), the CLI or the ingest thread (filing and parsing inline, waits answered at once).
   */
  mode: 'server' | 'cli' | 'ingest-thread';
  /** The store, or how to reach it once the data directory is open (the server opens it in open()). */
  store: Store | (() => Store);
  config: Config;
  log: Logger;
  /** The IMAP side of connected inboxes (the server's sync); else noSync, which refuses. */
  remote?: (deps: MailboxDeps) => RemoteBackends;
  /** Stand-ins for the provider table, DNS and HTTP (tests); the real ones otherwise. */
  lookups?: Partial<ConnectLookups>;
  /** How often waits re-check their keys (EmailWaiters); the server's default otherwise. */
  waitAccessCheckMs?: number;
}

/**
 * The one place MailboxDeps are made, for the server, the CLI and the ingest thread. The threads
 * it makes start with their start() (the server's open(), once the secret is loaded) and end
 * with their close().
 */
export function buildDeps(parts: DepsParts): MailboxDeps {
  const { config, log, store } = parts;
  const server = parts.mode === 'server';
  // Waiters and the remote act through the verbs, so they are made with the deps they belong to.
  let remote: RemoteBackends = noSync;
  let waiters: Waiters | null = null;
  const deps: MailboxDeps = Object.freeze({
    get store() {
      return typeof store === 'function' ? store() : store;
    },
    config,
    bus: new EventBus(),
    log,
    // The ingest thread keeps the group commit off the main thread: SQLite's fsync would block
    // it, and PostgreSQL's chain of round trips would wait behind its parsing and SMTP replies.
    // An in-memory SQLite database cannot be opened by a second connection.
    ingest:
      server && (config.dbFile !== ':memory:' || config.databaseUrl) && config.ingestThread
        ? new IngestWriter(config)
        : inlineIngest,
    parser:
      server && config.parseThreads > 0
        ? threadParser(new ParsePool(config.parseThreads, config.parseDeadlineMs, log), log)
        : inlineParser,
    get remote() {
      return remote;
    },
    get waiters() {
      return waiters!;
    },
    lookups: connectLookups(parts.lookups),
  });
  waiters = server ? new EmailWaiters(deps, parts.waitAccessCheckMs) : waitersAtOnce(deps);
  if (parts.remote) remote = parts.remote(deps);
  return deps;
}
