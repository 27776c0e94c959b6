import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config.js';
import { finishCompactSqlite } from './compact-finish.js';
import type { SqliteDb } from './sqlite.js';

const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** How long a start waits for another process's migration (or write) before giving up. */
const LOCK_WAIT_MS = 5 * 60_000;
/** A first, quiet wait: an ordinary write by a running server ends well within it. */
const QUIET_WAIT_MS = 1000;

export interface MigrateOptions {
  dir?: string;
  /** Told once when the write lock is held by someone else and this run waits for it. */
  onWait?: (message: string) => void;
}

/** The migration files this release ships, in the order they apply. */
export function knownMigrations(dir = migrationsDir): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^\d{3}_.+\.sql$/.test(name))
    .sort();
}

/**
 * Applies each migrations/NNN_name.sql not yet recorded in schema_migrations, in order.
 * Recording every file (not a high-water mark) means a migration merged with a lower number than
 * one already applied still runs. The whole run is one BEGIN IMMEDIATE transaction: SQLite's
 * write lock, so a server and an admin command starting together never migrate at once (the
 * second waits, then finds nothing left to do), and a failed migration leaves the schema as it
 * was. A database carrying a migration this release does not know (written by a newer Mailroom)
 * is refused before anything is changed. Then the last step of migration 017, where it is due
 * (src/db/compact-finish.ts).
 */
export function runMigrations(db: SqliteDb, options: MigrateOptions = {}): string[] {
  const applied = applyMigrations(db, options);
  finishCompactSqlite(db);
  return applied;
}

function applyMigrations(db: SqliteDb, options: MigrateOptions): string[] {
  const files = knownMigrations(options.dir);
  // Without the lock first: a database already up to date (every start but the first after an
  // upgrade) is only read.
  if (pendingOf(db, files).length === 0) return [];
  lockForWriting(db, options.onWait);
  try {
    const legacy = readRecorded(db).size === 0 ? [...readApplied(db, files)] : [];
    db.sqlite.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const record = db.sqlite.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)');
    for (const file of legacy) record.run(file, new Date().toISOString());
    const pending = pendingOf(db, files);
    for (const file of pending) {
      db.sqlite.exec(fs.readFileSync(`${options.dir ?? migrationsDir}/${file}`, 'utf8'));
      record.run(file, new Date().toISOString());
    }
    db.sqlite.exec('COMMIT');
    return pending;
  } catch (error) {
    if (db.sqlite.inTransaction) db.sqlite.exec('ROLLBACK');
    throw error;
  }
}

const hasMigrationsTable = (db: SqliteDb) =>
  db.sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get() !== undefined;

function readRecorded(db: SqliteDb): Set<string> {
  if (!hasMigrationsTable(db)) return new Set();
  const rows = db.sqlite.prepare('SELECT name FROM schema_migrations').all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

function readApplied(db: SqliteDb, files: string[]): Set<string> {
  const recorded = readRecorded(db);
  if (recorded.size > 0) return recorded;
  // The first release recorded only the number of the last migration applied, in user_version
  // (0 on a new database). Releases since then, until this one, left such a database with an
  // empty schema_migrations table (and failed to start on it).
  const version = db.sqlite.pragma('user_version', { simple: true }) as number;
  return new Set(files.filter((file) => Number(file.slice(0, 3)) <= version));
}

function pendingOf(db: SqliteDb, files: string[]): string[] {
  const applied = assertKnownSchema(db, files);
  return files.filter((file) => !applied.has(file));
}

/**
 * The migrations recorded in the database; refused (ConfigError, one line) when one of them is
 * not among `files`: the database was written by a newer Mailroom, whose schema this one must not
 * touch.
 */
export function assertKnownSchema(db: SqliteDb, files = knownMigrations()): Set<string> {
  const applied = readApplied(db, files);
  refuseUnknown(db.sqlite.name, applied, files);
  return applied;
}

/**
 * Throws (ConfigError, one line) when `applied` holds a migration not among `files`: the
 * database (`where`) was written by a newer Mailroom, whose schema this one must not touch.
 */
export function refuseUnknown(where: string, applied: Iterable<string>, files: string[]): void {
  const unknown = [...applied].filter((name) => !files.includes(name)).sort();
  if (unknown.length > 0) {
    throw new ConfigError(
      `${where} was upgraded by a newer Mailroom: it has migration ${unknown.at(-1)}, ` +
        `and this release knows migrations up to ${files.at(-1)}. Upgrade Mailroom to open it ` +
        `(or restore a backup made by this release); nothing was changed`,
    );
  }
}

/** BEGIN IMMEDIATE, waiting for the write lock: quietly at first, then saying so once. */
function lockForWriting(db: SqliteDb, onWait?: (message: string) => void): void {
  const busyTimeout = db.sqlite.pragma('busy_timeout', { simple: true }) as number;
  try {
    db.sqlite.pragma(`busy_timeout = ${QUIET_WAIT_MS}`);
    try {
      db.sqlite.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    }
    onWait?.(
      `waiting for the write lock on ${db.sqlite.name}: another Mailroom process is upgrading or writing it`,
    );
    db.sqlite.pragma(`busy_timeout = ${LOCK_WAIT_MS}`);
    db.sqlite.exec('BEGIN IMMEDIATE');
  } finally {
    db.sqlite.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
