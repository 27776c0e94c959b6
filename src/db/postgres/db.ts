import { AsyncLocalStorage } from 'node:async_hooks';
import type { Compilable, Insertable, Kysely } from 'kysely';
import pg from 'pg';
import { EVENT_APPEND_LOCK_KEY } from './lock-keys.js';
import type { Db, RunResult } from '../connection.js';
import { queryBuilder } from '../query-builder.js';
import type { Database } from '../schema.js';
import { DatabaseUnavailable } from '../unavailable.js';
import { isPostgresUnavailable } from './errors.js';
import { postgresDialect } from './dialect.js';
import { PendingInserts } from './pending-inserts.js';
import type { PendingRow } from './pending-inserts.js';
import { listenForNotices } from './notices.js';
import { SessionLocks } from './session-locks.js';
import { StatementNames, namedStatementProblem } from './statement-names.js';
import { numberPlaceholders } from './placeholders.js';
import { withoutPassword } from './url.js';

/**
 * The column PostgreSQL generates for each table that has one (an identity), answered as
 * `lastInsertRowid` as SQLite answers the rowid. Tables without one answer 0.
 */
const GENERATED_KEY: Partial<Record<keyof Database, string>> = {
  users: 'id',
  inboxes: 'id',
  folders: 'id',
  messages: 'id',
  message_sources: 'id',
  labels: 'rowid',
  deliveries: 'id',
  events: 'seq',
  webhooks: 'rowid',
  webhook_deliveries: 'id',
  webhook_attempts: 'id',
  address_lists: 'id',
};

const INT8 = 20;
const NUMERIC = 1700;

/** Per pool, not pg's global parsers: bigint and numeric come back as numbers, as on SQLite. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** The open transaction a call belongs to; `live` turns false when it ends. */
interface Tx {
  client: pg.PoolClient;
  live: boolean;
  /** Items to write just before COMMIT (writeAtCommit), by the function that writes them. */
  atCommit: Map<(items: never[]) => Promise<void>, unknown[]>;
  /** Whether it holds the event append lock (until it ends). */
  eventLock?: boolean;
  /** The last statement sent on its connection: calls made side by side run one after another. */
  last: Promise<unknown>;
  /** What stores keep for the length of the transaction (perTransaction). */
  kept: Map<object, unknown>;
  /** Rows insertSoon queued, written before the next statement that could see them. */
  pending: PendingInserts;
  /** Generated keys reserved for insertSoon, by table. */
  keys: Map<string, number[]>;
}

/** Generated keys a transaction reserves at once for insertSoon. */
const KEY_BLOCK = 64;

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  max?: number;
}

/**
 * The PostgreSQL engine on a pg.Pool. Calls outside a transaction take any connection and run
 * concurrently (PostgreSQL's own locks keep them right). `transaction` checks a connection out
 * and every call made while its callback runs, however deep, goes to that connection (found
 * through AsyncLocalStorage); a nested transaction joins. A lost connection or a server that is
 * down is a DatabaseUnavailable; the pool connects again by itself when the server is back.
 */
export class PostgresDb implements Db {
  readonly engine = 'postgres' as const;
  readonly dialect = postgresDialect;
  readonly kysely: Kysely<Database>;
  readonly name: string;
  readonly pool: pg.Pool;
  private readonly url: string;
  private closed = false;
  private readonly locks: SessionLocks;
  private readonly inside = new AsyncLocalStorage<Tx>();
  /** Set while a read runs that cannot see the rows insertSoon queued (readPast). */
  private readonly pastPending = new AsyncLocalStorage<true>();
  /** Outside transactions, statements run often are prepared once per connection. */
  private readonly names = new StatementNames();

  constructor(url: string, options: PostgresOptions = {}) {
    this.name = withoutPassword(url);
    this.url = url;
    this.locks = new SessionLocks(url);
    this.pool = new pg.Pool({
      connectionString: url,
      types,
      max: options.max ?? 10,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle connection the server dropped: the pool discards it and makes a new one when needed.
    this.pool.on('error', () => {});
    this.kysely = queryBuilder('postgres');
  }

  get open(): boolean {
    return !this.closed;
  }

  async all<R>(query: Compilable<R>): Promise<R[]> {
    const { sql, parameters } = query.compile();
    return (await this.query(sql, parameters)).rows as R[];
  }

  async first<R>(query: Compilable<R>): Promise<R | undefined> {
    const { sql, parameters } = query.compile();
    return (await this.query(sql, parameters)).rows[0] as R | undefined;
  }

  run(query: Compilable<unknown>): Promise<RunResult> {
    const compiled = query.compile();
    const node = compiled.query;
    if (node.kind !== 'InsertQueryNode' || node.returning || !node.into) {
      return this.execute(compiled.sql, compiled.parameters);
    }
    return this.insertSql(node.into.table.identifier.name, compiled.sql, compiled.parameters);
  }

  insert<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): Promise<RunResult> {
    const values = row as Record<string, unknown>;
    const columns = Object.keys(values).filter((c) => values[c] !== undefined);
    const sql =
      columns.length === 0
        ? `insert into "${table}" default values`
        : `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
          `values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    return this.insertSql(
      table,
      sql,
      columns.map((c) => values[c]),
    );
  }

  async rawAll<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    const numbered = numberPlaceholders(sql);
    const read = async () => (await this.query(numbered, params)).rows as R[];
    return /^\s*insert\s+into\s+"?events"?\s/i.test(numbered) ? this.withEventLock(read) : read();
  }

  /** Synced as any commit: another node could act on a claim a crash had lost. */
  rawAllUnsynced<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.rawAll(sql, ...params);
  }

  async rawFirst<R>(sql: string, ...params: unknown[]): Promise<R | undefined> {
    return (await this.query(numberPlaceholders(sql), params)).rows[0] as R | undefined;
  }

  rawRun(sql: string, ...params: unknown[]): Promise<RunResult> {
    const numbered = numberPlaceholders(sql).replace(/[\s;]+$/, '');
    const insert = /^\s*insert\s+into\s+"?(\w+)"?/i.exec(numbered);
    if (!insert || /\breturning\b/i.test(numbered)) return this.execute(numbered, params);
    return this.insertSql(insert[1]!, numbered, params);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inside.getStore()?.live) return fn();
    const client = await this.connect();
    const tx: Tx = {
      client,
      live: true,
      atCommit: new Map(),
      last: Promise.resolve(),
      kept: new Map(),
      pending: new PendingInserts(),
      keys: new Map(),
    };
    let lost: unknown;
    // A connection that drops between statements says so here; the next statement then fails.
    const onError = (error: unknown) => (lost ??= error);
    client.on('error', onError);
    try {
      await this.onClient(client, 'BEGIN');
      let result: T;
      try {
        result = await this.inside.run(tx, async () => {
          const done = await fn();
          await this.writePending(tx);
          await writeQueued(tx);
          await this.writePending(tx);
          return done;
        });
      } catch (error) {
        await client.query('ROLLBACK').catch((e: unknown) => (lost ??= e));
        throw this.wrap(error);
      }
      await this.onClient(client, 'COMMIT');
      return result;
    } catch (error) {
      if (error instanceof DatabaseUnavailable) lost ??= error;
      throw error;
    } finally {
      tx.live = false;
      client.off('error', onError);
      // A connection that failed is closed rather than handed to the next caller.
      client.release(lost ? toError(lost) : undefined);
    }
  }

  writeAtCommit<T>(write: (items: T[]) => Promise<void>, item: T): boolean {
    const tx = this.inside.getStore();
    if (!tx?.live) return false;
    const queued = tx.atCommit.get(write) ?? [];
    queued.push(item);
    tx.atCommit.set(write, queued);
    return true;
  }

  async insertSoon<T extends keyof Database & string>(
    table: T,
    row: Insertable<Database[T]>,
  ): Promise<number> {
    const tx = this.inside.getStore();
    if (!tx?.live || table === 'events') return (await this.insert(table, row)).lastInsertRowid;
    const values = { ...(row as PendingRow) };
    const key = GENERATED_KEY[table];
    let id = 0;
    if (key) {
      id = typeof values[key] === 'number' ? values[key] : await this.reservedKey(tx, table, key);
      values[key] = id;
    }
    tx.pending.add(table, values);
    return id;
  }

  async readPast<R>(
    matches: (table: string, row: PendingRow) => boolean,
    read: () => Promise<R>,
  ): Promise<R> {
    const tx = this.inside.getStore();
    if (!tx?.live || tx.pending.size === 0 || tx.pending.some(matches)) return read();
    return this.pastPending.run(true, read);
  }

  listen(channel: string, onNotice: () => void): Promise<() => Promise<void>> {
    return listenForNotices(this.url, channel, onNotice);
  }

  holdLock(space: number, key: number, onWait?: () => void): Promise<() => Promise<void>> {
    if (this.inside.getStore()?.live) throw new Error('a session lock is taken before any transaction');
    return this.locks.hold(space, key, onWait).catch((error: unknown) => {
      throw this.wrap(error);
    });
  }

  async notify(channel: string): Promise<void> {
    await this.query("SELECT pg_notify($1, '')", [channel]);
  }

  perTransaction<T>(key: object, make: () => T): T | undefined {
    const tx = this.inside.getStore();
    if (!tx?.live) return undefined;
    if (!tx.kept.has(key)) tx.kept.set(key, make());
    return tx.kept.get(key) as T;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.locks.close();
    await this.pool.end();
    // As SqliteDb.close: an enabled AsyncLocalStorage is visited by every new promise for good.
    this.inside.disable();
    this.pastPending.disable();
  }

  /** An insert answering the generated key of its table, if it has one, as lastInsertRowid. */
  private async insertSql(table: string, sql: string, params: readonly unknown[]): Promise<RunResult> {
    const key = GENERATED_KEY[table as keyof Database];
    const statement = key ? `${sql} returning "${key}"` : sql;
    const write = async () => {
      const result = await this.query(statement, params);
      const last = key
        ? (result.rows[result.rows.length - 1] as Record<string, unknown> | undefined)
        : undefined;
      return { changes: result.rowCount ?? 0, lastInsertRowid: Number(last?.[key!] ?? 0) };
    };
    return table === 'events' ? this.withEventLock(write) : write();
  }

  /** `write` (an insert into events) holding the event append lock, taken once per transaction. */
  private withEventLock<T>(write: () => Promise<T>): Promise<T> {
    return this.transaction(async () => {
      const tx = this.inside.getStore()!;
      if (!tx.eventLock) await this.query('select pg_advisory_xact_lock($1)', [EVENT_APPEND_LOCK_KEY]);
      tx.eventLock = true;
      return write();
    });
  }

  private async execute(sql: string, params: readonly unknown[]): Promise<RunResult> {
    const result = await this.query(sql, params);
    return { changes: result.rowCount ?? 0, lastInsertRowid: 0 };
  }

  /** On the caller's transaction's connection, or any connection of the pool outside one. */
  private async query(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    const tx = this.inside.getStore();
    if (tx?.live) {
      if (tx.pending.size > 0 && !this.pastPending.getStore()) await this.writePending(tx);
      return this.onTransaction(tx, sql, parameters);
    }
    const values = parameters.map(storable);
    const name = this.names.nameFor(sql);
    try {
      if (name === undefined) return await this.pool.query(sql, values);
      try {
        return await this.pool.query({ name, text: sql, values });
      } catch (error) {
        const problem = namedStatementProblem(error);
        if (problem === 'stale-plan')
          return await this.pool.query({ name: this.names.rename(sql), text: sql, values });
        if (problem !== 'missing') throw error;
        this.names.unname(sql);
        return await this.pool.query(sql, values);
      }
    } catch (error) {
      throw this.wrap(error);
    }
  }

  /** After the statements sent on the transaction's connection before it. */
  private async onTransaction(tx: Tx, sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    const params = parameters.map(storable);
    // One connection runs one statement at a time (pg queues them, but deprecates doing so).
    const run = tx.last.then(() => tx.client.query(sql, params));
    tx.last = run.catch(() => {});
    try {
      return await run;
    } catch (error) {
      throw this.wrap(error);
    }
  }

  /** The rows insertSoon queued, each table's in one statement, sent before anything after. */
  private async writePending(tx: Tx): Promise<void> {
    const inserts = tx.pending.take().map((s) => this.onTransaction(tx, s.sql, s.params));
    await Promise.all(inserts);
  }

  /** The next of a block of generated keys the transaction reserved for `table`. */
  private async reservedKey(tx: Tx, table: string, column: string): Promise<number> {
    let keys = tx.keys.get(table);
    if (!keys?.length) {
      // It reads no table: the rows waiting need not be written before it.
      const { rows } = await this.pastPending.run(true, () =>
        this.query('select nextval(pg_get_serial_sequence($1, $2)) as key from generate_series(1, $3)', [
          table,
          column,
          KEY_BLOCK,
        ]),
      );
      keys = rows.map((r: { key: number }) => r.key);
      tx.keys.set(table, keys);
    }
    return keys.shift()!;
  }

  private async onClient(client: pg.PoolClient, sql: string): Promise<void> {
    try {
      await client.query(sql);
    } catch (error) {
      throw this.wrap(error);
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.wrap(error);
    }
  }

  private wrap(error: unknown): unknown {
    if (error instanceof DatabaseUnavailable) return error;
    return isPostgresUnavailable(error) ? new DatabaseUnavailable(this.name, error) : error;
  }
}

/**
 * PostgreSQL's text cannot hold U+0000, which SQLite's can (hostile mail has it in its text): it
 * becomes U+FFFD, the replacement character, as an undecodable byte does. Bytes (bytea) keep it.
 */
function storable(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value;
}

/** Everything writeAtCommit queued, each writer once with all its items; writers may queue more. */
async function writeQueued(tx: Tx): Promise<void> {
  while (tx.atCommit.size > 0) {
    const [write, items] = tx.atCommit.entries().next().value!;
    tx.atCommit.delete(write);
    await write(items as never[]);
  }
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
