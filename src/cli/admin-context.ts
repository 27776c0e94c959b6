import pino from 'pino';
import { loadConfig } from '../config.js';
import type { Db } from '../db/connection.js';
import { EventBus } from '../events/bus.js';
import type { MailboxDeps } from '../mailbox/deps.js';
import { loadOrCreateSecret } from '../secret.js';
import { openStore } from '../store/open.js';

/** Admin commands open the same database and secret as the server (WAL allows both at once). */
function openDeps(dataDir: string | undefined): { deps: MailboxDeps; db: Db } {
  const config = loadConfig(dataDir ? { dataDir } : {});
  config.secret = loadOrCreateSecret(config);
  const { db, store } = openStore(config, {
    info: () => {},
    warn: (message) => process.stderr.write(`mailroom: warning: ${message}\n`),
  });
  return { deps: { store, config, bus: new EventBus(), log: pino({ level: 'silent' }) }, db };
}

export function withDeps<T>(dataDir: string | undefined, fn: (deps: MailboxDeps) => T): T {
  const { deps, db } = openDeps(dataDir);
  try {
    return fn(deps);
  } finally {
    db.close();
  }
}

/** withDeps for work that awaits (a connection test): the database stays open until it settles. */
export async function withDepsAsync<T>(
  dataDir: string | undefined,
  fn: (deps: MailboxDeps) => Promise<T>,
): Promise<T> {
  const { deps, db } = openDeps(dataDir);
  try {
    return await fn(deps);
  } finally {
    db.close();
  }
}
