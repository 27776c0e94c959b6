import path from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import type { Db } from '../db/connection.js';
import { dataDirProblem } from '../db/data-dir-errors.js';
import { SECRET_FILE } from '../db/file-modes.js';
import { openDatabase } from '../db/open.js';
import type { PostgresDb } from '../db/postgres/db.js';
import { MIGRATION_LOCK_KEY } from '../db/postgres/lock-keys.js';
import { loadOrCreateSecret } from '../secret.js';
import { createStore } from './index.js';
import type { Store } from './index.js';
import { sealSecretsAtRest } from './seal-at-rest.js';
import { convertToCompactStorage } from './compact-conversion.js';
import { rebuildOldSearchRows } from './search-rebuild.js';
import { SealedValueUnreadable, Sealer } from './sealing.js';

export interface OpenLog {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * The data directory as the server and the admin commands open it: MAILROOM_SECRET loaded (or
 * secret.key created beside the database), then openStore. A directory that cannot be created,
 * read or written is a ConfigError naming it (one line, no stack).
 */
export async function openDataDir(config: Config, log: OpenLog): Promise<{ db: Db; store: Store }> {
  try {
    config.secret = loadOrCreateSecret(config);
    return await openStore(config, log);
  } catch (error) {
    throw dataDirProblem(error, config.dbFile) ?? error;
  }
}

/**
 * The database as the server and the admin commands open it, MAILROOM_SECRET already loaded:
 * files private to this user, migrations applied, the secret checked and any secret still in
 * clear sealed. A secret that is not the database's is a ConfigError (one line, no stack). The
 * ingest thread opens its own connection with openDatabase and createStore alone: by then the
 * main thread has done all this.
 */
export async function openStore(config: Config, log: OpenLog): Promise<{ db: Db; store: Store }> {
  if (!config.secret) throw new Error('MAILROOM_SECRET must be loaded before the store opens');
  let db: Db;
  if (config.databaseUrl) {
    // The PostgreSQL driver loads only for a PostgreSQL database (docs/decisions/memory.md).
    const { openPostgres } = await import('../db/postgres/open.js');
    db = await openPostgres(config.databaseUrl, { onWait: (m) => log.warn(m) });
  } else {
    db = openDatabase({
      file: config.dbFile,
      synchronous: config.dbSync,
      onWarning: (m) => log.warn(m),
      onWait: (m) => log.warn(m),
    });
  }
  try {
    const sealed = await sealSecretsAtRest(db, new Sealer(config.secret));
    if (sealed.dkimKeys + sealed.webhookSecrets > 0) {
      log.info(
        `sealed ${sealed.dkimKeys} DKIM private key(s) and ${sealed.webhookSecrets} webhook secret(s) stored in clear`,
      );
    }
    await convertToCompactStorage(db, log);
    const reindexed = await rebuildOldSearchRows(db);
    if (reindexed > 0)
      log.info(`rebuilt the full-text index of ${reindexed} message(s) written by an older version`);
    if (db.engine === 'postgres') {
      const { convertSearchWords } = await import('../db/postgres/search-words-upgrade.js');
      await convertSearchWords((db as PostgresDb).pool, MIGRATION_LOCK_KEY, log);
    }
  } catch (error) {
    await db.close();
    if (error instanceof SealedValueUnreadable) throw wrongSecret(config, db.name);
    throw error;
  }
  return { db, store: createStore(db, config.secret) };
}

function wrongSecret(config: Config, database: string): ConfigError {
  const keyFile = path.join(path.dirname(config.dbFile), SECRET_FILE);
  return new ConfigError(
    `the secret in use (MAILROOM_SECRET, or ${keyFile} when it is unset) is not the one ${database} was sealed with, ` +
      `so its DKIM keys, webhook secrets and IMAP credentials cannot be read: ` +
      `restore the secret.key that was kept with this database, or set MAILROOM_SECRET to the original value`,
  );
}
