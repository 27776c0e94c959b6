import pg from 'pg';
import { ConfigError } from '../../config.js';
import { PostgresDb } from './db.js';
import type { PostgresOptions } from './db.js';
import { isPostgresUnavailable } from './errors.js';
import { runPostgresMigrations } from './migrate.js';

export interface OpenPostgresOptions extends PostgresOptions {
  /** Told when the start waits for another node's migration to finish. */
  onWait?: (message: string) => void;
}

/**
 * The PostgreSQL database at `url`, migrations applied. A server that cannot be reached, or
 * refuses this login, is a ConfigError naming the URL without its password and the cause.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresDb> {
  const db = new PostgresDb(url, options);
  try {
    await runPostgresMigrations(db.pool, { onWait: options.onWait });
  } catch (error) {
    await db.close().catch(() => {});
    throw connectProblem(error, db.name) ?? error;
  }
  return db;
}

/**
 * Whether the database at `url` holds a Mailroom schema (some migration applied to it), read
 * without changing anything. Undefined when it cannot be asked (unreachable, refused): opening it
 * says why, in one line.
 */
export async function holdsMailroom(url: string): Promise<boolean | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ table: string | null }>(
      "SELECT to_regclass('schema_migrations')::text AS table",
    );
    return rows[0]?.table != null;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/** SQLSTATEs of a login the server refused: no such role or database, a wrong password. */
const LOGIN_REFUSED = /^(28...|3D000)$/;

function connectProblem(error: unknown, name: string): ConfigError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const refused = typeof code === 'string' && LOGIN_REFUSED.test(code);
  if (!refused && !isPostgresUnavailable(error) && !isTlsProblem(error)) return undefined;
  return new ConfigError(
    `cannot use the PostgreSQL database ${name} (MAILROOM_DATABASE_URL or --database-url): ${causeOf(error)}`,
  );
}

/** What the driver said, on one line; an AggregateError (every address refused) by its first. */
function causeOf(error: unknown): string {
  const e = error as { message?: string; code?: string; errors?: unknown[] };
  const inner = !e.message && Array.isArray(e.errors) ? (e.errors[0] as typeof e | undefined) : undefined;
  const message = (inner?.message ?? e.message ?? String(error)).replace(/\s+/g, ' ').trim();
  const code = inner?.code ?? e.code;
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

function isTlsProblem(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /SSL|TLS|certificate/i.test(message);
}
