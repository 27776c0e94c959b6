import type { Compilable, Insertable, Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

export interface RunResult {
  changes: number;
  /** The id of the row an insert made (0 when the statement inserted nothing). */
  lastInsertRowid: number;
}

export type Engine = 'sqlite' | 'postgres';

/**
 * The store's one way to the database, whatever the engine (ARCHITECTURE rule 8). Kysely builds
 * the queries; an engine's Db runs them. Every call is async.
 *
 * A transaction is `await db.transaction(async () => ...)`: every call made on this Db while the
 * callback runs (however deep, through any store) joins that transaction, as a nested
 * transaction does. Calls from outside it wait until it ends, so nothing interleaves with a
 * transaction on its connection.
 */
export interface Db {
  readonly engine: Engine;
  /** A query builder for this engine's dialect; run what it builds with all/first/run. */
  readonly kysely: Kysely<Database>;
  /** The SQL that differs between engines (full-text search, JSON arrays, LIKE). */
  readonly dialect: Dialect;
  /** Where the data lives, for messages: the file path, or the URL without its password. */
  readonly name: string;
  readonly open: boolean;
  all<R>(query: Compilable<R>): Promise<R[]>;
  first<R>(query: Compilable<R>): Promise<R | undefined>;
  run(query: Compilable<unknown>): Promise<RunResult>;
  /** One row into one table; columns whose value is undefined are left out (as Kysely does). */
  insert<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): Promise<RunResult>;
  /** SQL Kysely does not express well, `?` for each parameter. */
  rawAll<R>(sql: string, ...params: unknown[]): Promise<R[]>;
  rawFirst<R>(sql: string, ...params: unknown[]): Promise<R | undefined>;
  rawRun(sql: string, ...params: unknown[]): Promise<RunResult>;
  /**
   * `rawAll` for a write whose loss in a power cut costs at most one repeated attempt where one
   * node runs: a claim. On SQLite, outside a transaction, its commit does not wait for the disk
   * (synchronous NORMAL for it alone; the next synced commit makes it durable with its own). On
   * PostgreSQL it is `rawAll`: another node could act on a claim a crash had lost.
   */
  rawAllUnsynced<R>(sql: string, ...params: unknown[]): Promise<R[]>;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Inside a transaction on an engine with row locks (PostgreSQL): queues `item` for `write`,
   * which runs in that transaction after its callback has returned, just before COMMIT, once,
   * with every item queued for it (so one statement can write them all; writers run in the order
   * first used, and a failure rolls the transaction back); answers true. Otherwise answers false
   * and queues nothing: the caller writes the item at once. For writes that take a lock every
   * transaction must take last (the event append's), and writes nothing reads before COMMIT.
   */
  writeAtCommit<T>(write: (items: T[]) => Promise<void>, item: T): boolean;
  /**
   * As insert, answering the row's generated key (0 for a table without one). Inside a
   * transaction on PostgreSQL the row is written later, in one statement with the others queued
   * for its table: before the transaction's next statement (except a read that says it cannot
   * see it, readPast), or at COMMIT; its key comes from a block the transaction reserved. A
   * failure of that write fails the statement it went ahead of. Elsewhere: written at once.
   */
  insertSoon<T extends keyof Database & string>(table: T, row: Insertable<Database[T]>): Promise<number>;
  /**
   * Runs `read` without first writing the rows insertSoon queued, unless one of them `matches`
   * (`table` is the one it waits for): for a read those rows could not change.
   */
  readPast<R>(
    matches: (table: string, row: Record<string, unknown>) => boolean,
    read: () => Promise<R>,
  ): Promise<R>;
  /**
   * Inside a transaction on an engine where each statement is a round trip (PostgreSQL): the
   * value kept under `key` for this transaction, made by `make` on first use. Otherwise
   * undefined, and the caller does the plain thing (a statement on SQLite is a function call).
   */
  perTransaction<T>(key: object, make: () => T): T | undefined;
  /**
   * Calls `onNotice` whenever a transaction that ran `notify(channel)` commits, on any node
   * (PostgreSQL's LISTEN/NOTIFY); answers the function that stops listening. Never on SQLite,
   * where one process holds the database.
   */
  listen(channel: string, onNotice: () => void): Promise<() => Promise<void>>;
  /** Inside a transaction: `listen`ers of `channel` hear of it once it commits (PostgreSQL only). */
  notify(channel: string): Promise<void>;
  /**
   * Holds lock `key` of `space` (two 32-bit integers) against every process on this database until
   * the answered function is called: on PostgreSQL a session-level advisory lock, waited for while
   * another process holds it (`onWait` told once); on SQLite, where one process holds the database,
   * at once. Taken outside any transaction and before any other lock, so it cannot close a cycle
   * with a row lock or the event append's lock that PostgreSQL would not see.
   */
  holdLock(space: number, key: number, onWait?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
