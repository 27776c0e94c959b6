import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Db } from '../db/connection.js';
import { SECRET_FILE } from '../db/file-modes.js';
import { withoutPassword } from '../db/postgres/url.js';
import type { SqliteDb } from '../db/sqlite.js';
import { cliConfig, withDeps } from './admin-context.js';
import type { DataDirOptions } from './admin-context.js';
import { common } from './admin-commands.js';
import { CliError } from './errors.js';
import { cliIo } from './io.js';
import { print } from './output.js';

export function registerBackupCommands(program: Command): void {
  common(
    program
      .command('backup <file>')
      .description('copy the database to <file>, consistent while the server runs (keep secret.key with it)')
      .option('--force', 'replace <file> if it exists'),
  ).action(async (file: string, o: DataDirOptions & { force?: boolean }) => {
    refusePostgres(o, 'backup', 'pg_dump --format=custom');
    const target = path.resolve(file);
    if (fs.existsSync(target) && !o.force) {
      throw new CliError('conflict', `${target} already exists: add --force to replace it`);
    }
    if (!fs.existsSync(path.dirname(target))) {
      throw new CliError('not_found', `the directory ${path.dirname(target)} does not exist`);
    }
    const [{ backupDatabase }, { SqliteDb }] = await Promise.all([
      import('../db/backup.js'),
      import('../db/sqlite.js'),
    ]);
    const { bytes, secretFile } = await withDeps(o, async (deps, _admin, db) => ({
      ...(await backupDatabase(sqliteOf(db, SqliteDb), target)),
      secretFile: cliIo().env.MAILROOM_SECRET
        ? undefined
        : path.join(path.dirname(deps.config.dbFile), SECRET_FILE),
    }));
    print(!!o.json, { backup: { file: target, bytes } }, () =>
      [
        `backed up to ${target} (${bytes} bytes)`,
        `The backup does not hold the secret that opens its DKIM keys, webhook secrets and IMAP credentials: ` +
          (secretFile ? `keep a copy of ${secretFile} with it.` : 'keep MAILROOM_SECRET with it.'),
      ].join('\n'),
    );
  });

  common(
    program
      .command('restore <file>')
      .description(
        'replace the database with a backup (the server must be stopped; secret.key restored first)',
      )
      .option('--force', 'replace the database the data directory already holds'),
  ).action(async (file: string, o: DataDirOptions & { force?: boolean }) => {
    refusePostgres(o, 'restore', 'pg_restore');
    const { restoreBackup } = await import('../mailbox/operations/maintenance.js');
    const summary = await restoreBackup(cliConfig(o), path.resolve(file), { force: !!o.force });
    print(
      !!o.json,
      { restored: summary },
      () =>
        `restored ${path.resolve(file)} into ${summary.database}: ${summary.users} user(s), ` +
        `${summary.inboxes} inbox(es), ${summary.messages} message(s). Start the server on it.`,
    );
  });
}

/**
 * Backup and restore copy an SQLite file; PostgreSQL has its own tools (and its backups are
 * usually the database service's). Said before anything is opened.
 */
function refusePostgres(o: DataDirOptions, command: string, tool: string): void {
  const { databaseUrl } = cliConfig(o);
  if (!databaseUrl) return;
  throw new CliError(
    'config_error',
    `mailroom ${command} copies an SQLite file, and the data is in PostgreSQL (${withoutPassword(databaseUrl)}): ` +
      `use ${tool} with the same URL instead (keep MAILROOM_SECRET with the backup)`,
  );
}

/** The backup is SQLite's online copy of its file. */
function sqliteOf(db: Db, Sqlite: typeof SqliteDb): SqliteDb {
  if (db instanceof Sqlite) return db;
  throw new CliError(
    'config_error',
    `mailroom backup copies an SQLite file: back up ${db.name} with its engine's own tools`,
  );
}
