import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { knownMigrations, runMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { SqliteDb } from '../../src/db/sqlite.js';
import { onPostgres } from './server.js';
import { testPostgres } from './test-postgres.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const shipped = path.join(root, onPostgres ? 'migrations/postgres' : 'migrations');

/** A database on the project's engine, upgraded across one migration; plain SQL into it. */
export interface Upgraded {
  query(sql: string): Promise<Record<string, unknown>[]>;
  run(sql: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A database built by the migrations before `migration` (its number, '027'), holding the rows
 * `before` inserts, then migrated to this release: a migration's test on data made before it.
 */
export async function migratedFrom(migration: string, before: string[]): Promise<Upgraded> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `mailroom-${migration}-`));
  try {
    for (const file of knownMigrations(shipped).filter((f) => f < migration)) {
      fs.copyFileSync(path.join(shipped, file), path.join(tmp, file));
    }
    if (onPostgres) {
      const pool = new pg.Pool({ connectionString: await (await testPostgres()).createDatabase(), max: 1 });
      await runPostgresMigrations(pool, { dir: tmp });
      for (const sql of before) await pool.query(sql);
      await runPostgresMigrations(pool);
      return {
        query: async (sql) => (await pool.query(sql)).rows as Record<string, unknown>[],
        run: async (sql) => void (await pool.query(sql)),
        close: () => pool.end(),
      };
    }
    const db = new SqliteDb(new BetterSqlite3(':memory:'));
    runMigrations(db, { dir: tmp });
    for (const sql of before) db.sqlite.exec(sql);
    runMigrations(db);
    return {
      query: async (sql) => db.sqlite.prepare(sql).all() as Record<string, unknown>[],
      run: async (sql) => void db.sqlite.exec(sql),
      close: async () => void db.sqlite.close(),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
