import pino from 'pino';
import { loadConfig } from '../config.js';
import type { Config } from '../config.js';
import { openDatabase } from '../db/open.js';
import { EventBus } from '../events/bus.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import { createStore } from '../store/index.js';

/** Admin commands open the same database as the server (WAL allows both at once). */
export function withDeps<T>(dataDir: string | undefined, fn: (deps: MailboxDeps) => T): T {
  const config: Config = loadConfig(dataDir ? { dataDir } : {});
  const db = openDatabase({ file: config.dbFile, synchronous: config.dbSync });
  try {
    return fn({ store: createStore(db), config, bus: new EventBus(), log: pino({ level: 'silent' }) });
  } finally {
    db.close();
  }
}

/** withDeps for work that awaits (a connection test): the database stays open until it settles. */
export async function withDepsAsync<T>(
  dataDir: string | undefined,
  fn: (deps: MailboxDeps) => Promise<T>,
): Promise<T> {
  const config: Config = loadConfig(dataDir ? { dataDir } : {});
  const db = openDatabase({ file: config.dbFile, synchronous: config.dbSync });
  try {
    return await fn({ store: createStore(db), config, bus: new EventBus(), log: pino({ level: 'silent' }) });
  } finally {
    db.close();
  }
}
