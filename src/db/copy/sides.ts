import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../../config.js';
import type { Db } from '../connection.js';
import { openDatabase } from '../open.js';
import { PostgresDb } from '../postgres/db.js';
import { openPostgres } from '../postgres/open.js';
import { withoutPassword } from '../postgres/url.js';
import { SqliteDb } from '../sqlite.js';
import { DatabaseUnavailable } from '../unavailable.js';
import { CopyRefused } from './refused.js';

/** A database named on the command line: a PostgreSQL URL, or else an SQLite file. */
export const isPostgresUrl = (where: string) => /^postgres(ql)?:\/\//i.test(where);

/** How messages name a side: the file's full path, or the URL without its password. */
export const shownName = (where: string) =>
  isPostgresUrl(where) ? withoutPassword(where) : path.resolve(where);

/**
 * The source, opened for reading only: no migration, no file mode changed. An SQLite file is
 * opened read-only; a PostgreSQL database through one connection (the copy reads it in one
 * read-only snapshot). Refused in one line when it is missing, unreachable or not Mailroom's.
 */
export async function openSource(where: string): Promise<Db> {
  const db = isPostgresUrl(where) ? await connectPostgres(where, 'source') : openSqliteSource(where);
  try {
    const marked = await db.rawFirst<{ n: number }>(
      db.engine === 'sqlite'
        ? "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        : "SELECT count(*) AS n FROM pg_class WHERE oid = to_regclass('schema_migrations')",
    );
    if (!marked?.n) {
      throw new CopyRefused(
        'config_error',
        `the source ${db.name} is not a Mailroom database (no schema_migrations)`,
      );
    }
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

function openSqliteSource(file: string): Db {
  const name = path.resolve(file);
  if (!fs.existsSync(name) || fs.statSync(name).size === 0) {
    throw new CopyRefused('not_found', `no SQLite database at ${name} (the source)`);
  }
  try {
    return new SqliteDb(new BetterSqlite3(name, { readonly: true, fileMustExist: true }));
  } catch (error) {
    throw new CopyRefused('config_error', `cannot open the source ${name}: ${(error as Error).message}`);
  }
}

/** A PostgreSQL database on one connection, reached now (or refused in one line). */
async function connectPostgres(url: string, side: 'source' | 'target'): Promise<PostgresDb> {
  const db = new PostgresDb(url, { max: 1 });
  try {
    await db.rawFirst('SELECT 1');
    return db;
  } catch (error) {
    await db.close().catch(() => {});
    throw new CopyRefused('config_error', `cannot reach the ${side} ${db.name}: ${oneLine(error)}`);
  }
}

export interface Target {
  db: Db;
  /** Undo what opening made when the copy fails: an SQLite file that did not exist before. */
  discard(): Promise<void>;
}

/**
 * The target, migrations applied so it has every table of this release. A new SQLite file is
 * created (and removed again if the copy fails); an existing one must be Mailroom's.
 */
export async function openTarget(where: string): Promise<Target> {
  if (isPostgresUrl(where)) {
    await (await connectPostgres(where, 'target')).close();
    try {
      const db = await openPostgres(where);
      return { db, discard: () => Promise.resolve() };
    } catch (error) {
      if (error instanceof ConfigError) throw new CopyRefused('config_error', `the target: ${error.message}`);
      throw error;
    }
  }
  const file = path.resolve(where);
  if (!fs.existsSync(path.dirname(file))) {
    throw new CopyRefused('not_found', `the directory ${path.dirname(file)} does not exist (the target)`);
  }
  const existed = fs.existsSync(file) && fs.statSync(file).size > 0;
  if (existed) refuseForeignSqlite(file);
  let db: Db;
  try {
    db = openDatabase({ file, synchronous: 'full' });
  } catch (error) {
    if (error instanceof ConfigError) throw new CopyRefused('config_error', error.message);
    throw new CopyRefused('config_error', `cannot open the target ${file}: ${oneLine(error)}`);
  }
  return {
    db,
    async discard() {
      await db.close();
      if (existed) return;
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
    },
  };
}

/** An SQLite file that is someone else's must not get Mailroom's tables added to it. */
function refuseForeignSqlite(file: string): void {
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const ours = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .get();
    if (!ours)
      throw new CopyRefused(
        'config_error',
        `the target ${file} is an SQLite database, but not one of Mailroom's`,
      );
  } catch (error) {
    if (error instanceof CopyRefused) throw error;
    throw new CopyRefused(
      'config_error',
      `the target ${file} is not a readable SQLite database: ${oneLine(error)}`,
    );
  } finally {
    sqlite?.close();
  }
}

/** A driver's error on one line, with its code when the message does not carry it. */
export function oneLine(error: unknown): string {
  if (error instanceof DatabaseUnavailable) return oneLine(error.cause);
  const e = error as { message?: string; code?: string; errors?: { message?: string; code?: string }[] };
  const inner = !e?.message && Array.isArray(e?.errors) ? e.errors[0] : undefined;
  const message = (inner?.message ?? e?.message ?? String(error)).replace(/\s+/g, ' ').trim();
  const code = inner?.code ?? e?.code;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
