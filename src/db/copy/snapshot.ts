import type { Db } from '../connection.js';
import { SqliteDb } from '../sqlite.js';

/**
 * Runs `read` inside one read-only snapshot of `db`: whatever the source's server commits while
 * the copy runs, the copy sees the database as it was when it began, every table at the same
 * moment. SQLite: a deferred read transaction (in WAL mode it blocks no writer). PostgreSQL: a
 * REPEATABLE READ, READ ONLY transaction.
 */
export async function inSnapshot<T>(db: Db, read: () => Promise<T>): Promise<T> {
  if (db instanceof SqliteDb) {
    db.sqlite.exec('BEGIN');
    try {
      return await read();
    } finally {
      if (db.sqlite.inTransaction) db.sqlite.exec('COMMIT');
    }
  }
  return db.transaction(async () => {
    await db.rawRun('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    return read();
  });
}
