import { pino } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { openDataDir } from '../store/open.js';
import type { MailboxDeps } from './deps.js';
import type { RemoteBackends } from './remote.js';
import { buildDeps } from './runtime.js';

/**
 * The data directory opened for an admin command, as the server opens it (secret loaded,
 * migrations applied, the secret checked), and the CLI's deps on it. The database stays open
 * until the caller closes `db`.
 */
export async function openForCommand(
  config: Config,
  warn: (message: string) => void,
  remote?: (deps: MailboxDeps) => RemoteBackends,
): Promise<{ deps: MailboxDeps; db: Db }> {
  const { db, store } = await openDataDir(config, { info: () => {}, warn });
  return { deps: buildDeps({ mode: 'cli', store, config, log: pino({ level: 'silent' }), remote }), db };
}
