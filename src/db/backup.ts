import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../config.js';
import { SqliteDb } from './sqlite.js';
import { createDataDir } from './file-modes.js';

/** Pages per backup step: all of them, so the copy is one snapshot and is never restarted. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the live database to `target` with SQLite's online backup API. The copy is one read
 * transaction (in WAL mode it does not block the server's writes) of everything committed when
 * it started, written beside the target and renamed into place once complete and checked, so a
 * failed backup never leaves a half file under the target's name. The copy is a single file
 * (rollback journal, no -wal) readable by this user alone: it holds mail and sealed secrets.
 */
export async function backupDatabase(db: SqliteDb, target: string): Promise<{ bytes: number }> {
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  try {
    await db.sqlite.backup(partial, { progress: () => ALL_PAGES });
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the backup copy failed its check: ${String(check)}`);
    } finally {
      copy.close();
    }
    fsyncFile(partial);
    fs.renameSync(partial, target);
    fsyncFile(path.dirname(target));
    return { bytes: fs.statSync(target).size };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/** A backup file opened read-only, to be checked before it replaces anything. */
export function openBackup(file: string): SqliteDb {
  if (!fs.existsSync(file)) throw new ConfigError(`no backup file at ${file}`);
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const check = sqlite.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new ConfigError(`${file} is damaged (integrity_check: ${String(check)})`);
    const table = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (!table) throw new ConfigError(`${file} is an SQLite database, but not one of Mailroom's`);
    return new SqliteDb(sqlite);
  } catch (error) {
    sqlite?.close();
    if (error instanceof ConfigError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) {
      throw new ConfigError(`${file} is not a Mailroom backup (not a readable SQLite database)`);
    }
    throw error;
  }
}

/**
 * Puts the backup in place of `dbFile`. Refuses while any other connection has the database
 * open (a running server, an admin command): leaving WAL mode needs every other connection gone,
 * and SQLite says SQLITE_BUSY otherwise. The old file is then held under an exclusive lock until
 * the copy has been renamed over it, so nothing can start using it in between.
 */
export async function replaceDatabase(backup: SqliteDb, dbFile: string): Promise<void> {
  createDataDir(path.dirname(dbFile));
  const lock = fs.existsSync(dbFile) ? lockExclusively(dbFile) : undefined;
  const partial = `${dbFile}.restoring`;
  try {
    fs.rmSync(partial, { force: true });
    fs.closeSync(fs.openSync(partial, 'wx', 0o600));
    await backup.sqlite.backup(partial, { progress: () => ALL_PAGES });
    fsyncFile(partial);
    fs.renameSync(partial, dbFile);
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(dbFile + suffix, { force: true });
    fsyncFile(path.dirname(dbFile));
  } finally {
    lock?.close();
    fs.rmSync(partial, { force: true });
  }
}

function lockExclusively(dbFile: string): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(dbFile, { timeout: 0 });
  try {
    sqlite.pragma('journal_mode = DELETE');
    sqlite.exec('BEGIN EXCLUSIVE');
    return sqlite;
  } catch (error) {
    sqlite.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new ConfigError(
        `${dbFile} is in use by another process (a running Mailroom server or admin command): stop it, then restore`,
      );
    }
    throw error;
  }
}

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
