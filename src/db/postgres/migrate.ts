import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { ConfigError } from '../../config.js';
import { finishCompactPostgres } from '../compact-finish.js';
import { knownMigrations, refuseUnknown } from '../migrate.js';
import { inTransaction, withClient } from './one-client.js';
import type { Queryable } from './one-client.js';
import { MIGRATION_LOCK_KEY } from './lock-keys.js';
import { finishSearchWords } from './search-words-upgrade.js';

const migrationsDir = fileURLToPath(new URL('../../../migrations/postgres/', import.meta.url));

/** How long a start waits for another node's migration before giving up. */
const LOCK_WAIT = '5min';
const LOCK_NOT_AVAILABLE = '55P03';

export interface PostgresMigrateOptions {
  /** Default: the migrations/postgres/ this release ships. */
  dir?: string;
  /** Told once when another node holds the migration lock and this run waits for it. */
  onWait?: (message: string) => void;
}

/**
 * Applies each migrations/postgres/NNN_name.sql not yet recorded in schema_migrations, in order,
 * as runMigrations does for SQLite: the same file names, so both engines record the same rows.
 * The run is one transaction holding pg_advisory_xact_lock(MIGRATION_LOCK_KEY): nodes starting
 * together never migrate at once (the second waits, then finds nothing left to do), and a failed
 * migration leaves the schema as it was. A database carrying a migration this release does not
 * know is refused (ConfigError, one line) before anything is changed. Returns the files applied.
 * Then the last steps of migrations 017 and 029, where they are due (src/db/compact-finish.ts,
 * search-words-upgrade.ts).
 */
export async function runPostgresMigrations(
  db: Queryable,
  options: PostgresMigrateOptions = {},
): Promise<string[]> {
  const applied = await applyMigrations(db, options);
  await finishCompactPostgres(db, MIGRATION_LOCK_KEY);
  await finishSearchWords(db, MIGRATION_LOCK_KEY);
  return applied;
}

async function applyMigrations(db: Queryable, options: PostgresMigrateOptions): Promise<string[]> {
  const dir = options.dir ?? migrationsDir;
  const files = knownMigrations(dir);
  return withClient(db, async (client) => {
    // Without the lock first: a database already up to date (every start but the first after an
    // upgrade) is only read.
    if ((await pendingOf(client, files)).length === 0) return [];
    return inTransaction(client, async () => {
      await lock(client, options.onWait);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at text NOT NULL)',
      );
      const pending = await pendingOf(client, files);
      for (const file of pending) {
        await client.query(fs.readFileSync(`${dir}/${file}`, 'utf8'));
        await client.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [
          file,
          new Date().toISOString(),
        ]);
      }
      return pending;
    });
  });
}

async function pendingOf(client: pg.ClientBase, files: string[]): Promise<string[]> {
  const { rows } = await client.query<{ database: string; table: string | null }>(
    "SELECT current_database() AS database, to_regclass('schema_migrations')::text AS table",
  );
  const applied = new Set<string>();
  if (rows[0]?.table != null) {
    const recorded = await client.query<{ name: string }>('SELECT name FROM schema_migrations');
    for (const row of recorded.rows) applied.add(row.name);
  }
  refuseUnknown(`PostgreSQL database ${rows[0]?.database}`, applied, files);
  return files.filter((file) => !applied.has(file));
}

/** The migration lock, waiting for it: at once if free, else saying so once, up to LOCK_WAIT. */
async function lock(client: pg.ClientBase, onWait?: (message: string) => void): Promise<void> {
  const key = MIGRATION_LOCK_KEY.toString();
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
    key,
  ]);
  if (rows[0]?.locked) return;
  onWait?.('waiting for the migration lock: another Mailroom node is upgrading the database');
  await client.query(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`);
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [key]);
  } catch (error) {
    if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    throw new ConfigError(
      `gave up after ${LOCK_WAIT} waiting for the migration lock: another Mailroom node is still upgrading the database`,
    );
  }
  await client.query('SET LOCAL lock_timeout = DEFAULT');
}
