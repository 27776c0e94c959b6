import { AsyncLocalStorage } from 'node:async_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import type { Compilable, Insertable, Kysely } from 'kysely';
import type { Db, RunResult } from './connection.js';
import { queryBuilder } from './query-builder.js';
import type { Database } from './schema.js';
import { sqliteDialect } from './sqlite-dialect.js';

export type Sqlite = BetterSqlite3.Database;

interface Reader {
  statement: BetterSqlite3.Statement;
  rowOf: (values: unknown[]) => Record<string, unknown>;
}

/**
 * The SQLite engine: better-sqlite3 runs each statement synchronously, so a call outside a
 * transaction costs what it did before the store was async (a resolved promise). One connection
 * means one transaction at a time: `transaction` takes a lock that calls from outside it wait
 * for, and calls made inside it (found through AsyncLocalStorage) run on at once.
 */
export class SqliteDb implements Db {
  readonly engine = 'sqlite' as const;
  readonly dialect = sqliteDialect;
  readonly kysely: Kysely<Database>;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly readers = new Map<string, Reader>();
  /** Marks the async work a transaction's callback started; `current` is the open one. */
  private readonly inside = new AsyncLocalStorage<object>();
  private current: object | null = null;
  private locked = false;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly sqlite: Sqlite) {
    this.kysely = queryBuilder('sqlite');
  }

  get name(): string {
    return this.sqlite.name;
  }

  get open(): boolean {
    return this.sqlite.open;
  }

  all<R>(query: Compilable<R>): Promise<R[]> {
    const { sql, parameters } = query.compile();
    return this.rawAll(sql, ...(parameters as unknown[]));
  }

  first<R>(query: Compilable<R>): Promise<R | undefined> {
    const { sql, parameters } = query.compile();
    return this.rawFirst(sql, ...(parameters as unknown[]));
  }

  run(query: Compilable<unknown>): Promise<RunResult> {
    const { sql, parameters } = query.compile();
    return this.rawRun(sql, ...(parameters as unknown[]));
  }

  /**
   * The same SQL Kysely would build, without compiling a query tree each time (that was a tenth
   * of the ingest thread's time per message).
   */
  insert<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): Promise<RunResult> {
    const values = row as Record<string, unknown>;
    const columns = Object.keys(values).filter((c) => values[c] !== undefined);
    const names = columns.map((c) => `"${c}"`).join(', ');
    const sql = `insert into "${table}" (${names}) values (${columns.map(() => '?').join(', ')})`;
    return this.rawRun(sql, ...columns.map((c) => values[c]));
  }

  rawAll<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    return this.when(() => this.readAll<R>(sql, params));
  }

  rawFirst<R>(sql: string, ...params: unknown[]): Promise<R | undefined> {
    return this.when(() => {
      const { statement, rowOf } = this.reader(sql);
      const values = statement.get(...params) as unknown[] | undefined;
      return values && (rowOf(values) as R);
    });
  }

  rawRun(sql: string, ...params: unknown[]): Promise<RunResult> {
    return this.when(() => {
      const result = this.prepare(sql).run(...params);
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
    });
  }

  rawAllUnsynced<R>(sql: string, ...params: unknown[]): Promise<R[]> {
    if (this.joins()) return this.rawAll(sql, ...params);
    return this.when(() => {
      const level = this.sqlite.pragma('synchronous', { simple: true }) as number;
      this.sqlite.pragma('synchronous = NORMAL');
      try {
        return this.readAll<R>(sql, params);
      } finally {
        this.sqlite.pragma(`synchronous = ${level}`);
      }
    });
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.joins()) return fn();
    await this.lock();
    const token = {};
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      this.current = token;
      try {
        const result = await this.inside.run(token, fn);
        this.sqlite.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.current = null;
      this.unlock();
    }
  }

  /** Never: one writer at a time holds the whole database, so there is no lock order to keep. */
  writeAtCommit(): boolean {
    return false;
  }

  /** At once: a statement here costs a function call, not a round trip worth saving. */
  async insertSoon<T extends keyof Database & string>(
    table: T,
    row: Insertable<Database[T]>,
  ): Promise<number> {
    return (await this.insert(table, row)).lastInsertRowid;
  }

  /** Nothing waits to be written here (insertSoon writes at once). */
  readPast<R>(_matches: unknown, read: () => Promise<R>): Promise<R> {
    return read();
  }

  /** At once: one process holds the database, and its own callers keep their order (a Mutex). */
  async holdLock(): Promise<() => Promise<void>> {
    return async () => {};
  }

  /** Never: a statement here costs a function call, not a round trip worth saving. */
  perTransaction(): undefined {
    return undefined;
  }

  /** One process holds the file: its own bus tells its listeners (the CLI's changes are not heard). */
  async listen(): Promise<() => Promise<void>> {
    return async () => {};
  }

  async notify(): Promise<void> {}

  /** Synchronous work inside a transaction the caller holds: migrations and startup checks. */
  immediate<T>(work: () => T): T {
    if (this.sqlite.inTransaction) return work();
    return this.sqlite.transaction(work).immediate();
  }

  async close(): Promise<void> {
    this.statements.clear();
    this.readers.clear();
    if (this.sqlite.open) this.sqlite.close();
    // An enabled AsyncLocalStorage stays in Node's list for good and every new promise of the
    // process visits it: a process that opens many databases (the tests) must let them go.
    this.inside.disable();
  }

  private readAll<R>(sql: string, params: unknown[]): R[] {
    const { statement, rowOf } = this.reader(sql);
    return (statement.all(...params) as unknown[][]).map(rowOf) as R[];
  }

  /** Runs a statement now, unless a transaction other than the caller's holds the connection. */
  private when<R>(work: () => R): Promise<R> {
    if (this.locked && !this.joins()) return this.lock().then(() => this.runThenUnlock(work));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Whether the caller is inside the open transaction. Work a callback left behind (a timer, a
   * listener) keeps the mark after the commit; it no longer matches `current`, so it waits.
   */
  private joins(): boolean {
    return this.current !== null && this.inside.getStore() === this.current;
  }

  private runThenUnlock<R>(work: () => R): R {
    try {
      return work();
    } finally {
      this.unlock();
    }
  }

  private lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.locked = false;
  }

  /**
   * A statement that returns rows, reading them as arrays that `rowOf` makes objects of: rows
   * built by better-sqlite3 cost twice as much (a list page of 50 wide rows: 1.0-1.4 ms against
   * 0.6-0.8 ms), and its objects are slower to read from. A later column of a repeated name wins,
   * as in better-sqlite3's own objects.
   */
  private reader(sql: string): Reader {
    return cached(this.readers, sql, () => {
      const statement = this.sqlite.prepare(sql);
      if (!statement.reader) throw new Error(`not a statement that returns rows: ${sql}`);
      statement.raw(true);
      const names = statement.columns().map((c) => c.name);
      const rowOf = (values: unknown[]) => {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
        return row;
      };
      return { statement, rowOf };
    });
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    return cached(this.statements, sql, () => this.sqlite.prepare(sql));
  }
}

/** Prepared statements kept by their SQL; the cache starts again past 2,000 texts. */
function cached<T>(cache: Map<string, T>, sql: string, make: () => T): T {
  let value = cache.get(sql);
  if (value === undefined) {
    value = make();
    if (cache.size > 2000) cache.clear();
    cache.set(sql, value);
  }
  return value;
}
