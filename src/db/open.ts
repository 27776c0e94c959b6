import BetterSqlite3 from 'better-sqlite3';
import { SqliteDb } from './sqlite.js';
import { makeDataPrivate } from './file-modes.js';
import { runMigrations } from './migrate.js';

export interface OpenOptions {
  /** A file path, or ':memory:'. */
  file: string;
  /** 'full' fsyncs every commit (survives power loss); 'normal' survives a process crash only. */
  synchronous?: 'full' | 'normal';
  /** Told what could not be made private to this user (the files are readable by others). */
  onWarning?: (message: string) => void;
  /** Told when the start waits for another process's migration (or write) to finish. */
  onWait?: (message: string) => void;
}

/** SQLite's page cache per connection, in KiB. */
const PAGE_CACHE_KIB = 4_096;

/** Bytes the WAL file is cut back to after a checkpoint. */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

export function openDatabase(options: OpenOptions): SqliteDb {
  if (options.file !== ':memory:') {
    for (const warning of makeDataPrivate(options.file)) options.onWarning?.(warning);
  }
  const sqlite = new BetterSqlite3(options.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // 4 MB per connection: the b-tree's inner pages fit, the rest is a pread from the OS's file
  // cache away. Lists, searches and an IMAP sync measured as fast as with 16 MB, which a server
  // filled over a few hundred thousand messages (docs/decisions/memory.md).
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  sqlite.pragma('temp_store = MEMORY');
  // A long write (an IMAP sync of big mail) grows the WAL far past its usual size; without a limit
  // the file keeps that size for good. With it, the WAL shrinks back once a checkpoint has run.
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  const db = new SqliteDb(sqlite);
  try {
    runMigrations(db, { onWait: options.onWait });
  } catch (error) {
    void db.close();
    throw error;
  }
  return db;
}
