import type { Db } from '../../src/db/connection.js';
import { SqliteDb } from '../../src/db/sqlite.js';
import type { Sqlite } from '../../src/db/sqlite.js';

/** The better-sqlite3 handle under a Db, for tests that reach below the store (pragmas, raw bytes). */
export function sqliteOf(db: Db): Sqlite {
  if (!(db instanceof SqliteDb)) throw new Error('this test needs the SQLite engine');
  return db.sqlite;
}
