import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import { openBackup, replaceDatabase } from '../db/backup.js';
import { SECRET_FILE } from '../db/file-modes.js';
import { assertKnownSchema } from '../db/migrate.js';
import { findSecret } from '../secret.js';
import { secretOpens } from './seal-at-rest.js';
import { Sealer } from './sealing.js';

export interface RestoreSummary {
  database: string;
  users: number;
  inboxes: number;
  messages: number;
}

/**
 * Replaces the data directory's database with a backup, after checking everything that would
 * make the result unusable: the file is a whole Mailroom database (integrity_check), from this
 * release or an older one, and its sealed values open with the secret in use (MAILROOM_SECRET or
 * the directory's secret.key, which must be restored first: it is not in the backup). An existing
 * database is replaced only with `force`, and never while a process has it open.
 */
export async function restoreDatabase(
  config: Config,
  file: string,
  options: { force: boolean },
): Promise<RestoreSummary> {
  const backup = openBackup(file);
  try {
    assertKnownSchema(backup);
    await checkSecret(config, backup, file);
    const hasDatabase = fs.existsSync(config.dbFile) && fs.statSync(config.dbFile).size > 0;
    if (hasDatabase && !options.force) {
      throw new ConfigError(
        `${config.dbFile} already holds a database: add --force to replace it (back it up first with mailroom backup)`,
      );
    }
    const count = async (table: 'users' | 'inboxes' | 'messages') => {
      const row = await backup.first(
        backup.kysely.selectFrom(table).select((eb) => eb.fn.countAll().as('n')),
      );
      return Number(row?.n ?? 0);
    };
    const summary = {
      database: config.dbFile,
      users: await count('users'),
      inboxes: await count('inboxes'),
      messages: await count('messages'),
    };
    await replaceDatabase(backup, config.dbFile);
    return summary;
  } finally {
    await backup.close();
  }
}

async function checkSecret(
  config: Config,
  backup: Parameters<typeof secretOpens>[0],
  file: string,
): Promise<void> {
  const keyFile = path.join(path.dirname(config.dbFile), SECRET_FILE);
  const secret = findSecret(config);
  if (!secret) {
    throw new ConfigError(
      `no secret to open ${file} with: copy the secret.key kept with the backup to ${keyFile} ` +
        `(or set MAILROOM_SECRET to the original value), then restore again`,
    );
  }
  if ((await secretOpens(backup, new Sealer(secret))) === false) {
    throw new ConfigError(
      `${file} was sealed with another secret than the one in use (MAILROOM_SECRET, or ${keyFile} when it is unset): ` +
        `put the secret.key kept with the backup there (or set MAILROOM_SECRET to the original value); nothing was changed`,
    );
  }
}
