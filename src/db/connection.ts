import type BetterSqlite3 from 'better-sqlite3';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Compilable, Insertable } from 'kysely';
import type { Database } from './schema.js';

export type Sqlite = BetterSqlite3.Database;

/**
 * Kysely builds the SQL; better-sqlite3 runs it synchronously. Synchronous execution lets a
 * transaction be a plain function that nothing else can interleave with, which is what makes
 * "commit, then answer 250" simple to get right.
 */
export class Db {
  readonly kysely: Kysely<Database>;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(readonly sqlite: Sqlite) {
    this.kysely = new Kysely<Database>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
    });
  }

  all<R>(query: Compilable<R>): R[] {
    const { sql, parameters } = query.compile();
    return this.prepare(sql).all(...(parameters as unknown[])) as R[];
  }

  first<R>(query: Compilable<R>): R | undefined {
    const { sql, parameters } = query.compile();
    return this.prepare(sql).get(...(parameters as unknown[])) as R | undefined;
  }

  run(query: Compilable<unknown>): { changes: number; lastInsertRowid: number } {
    const { sql, parameters } = query.compile();
    const result = this.prepare(sql).run(...(parameters as unknown[]));
    return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
  }

  /**
   * One row into one table, for the inserts on the ingest path: the same SQL Kysely would build,
   * without compiling a query tree each time (that was a tenth of the thread's time per message).
   * Like Kysely, a column whose value is undefined is left out.
   */
  insert<T extends keyof Database & string>(
    table: T,
    row: Insertable<Database[T]>,
  ): { changes: number; lastInsertRowid: number } {
    const columns = Object.keys(row).filter((c) => (row as Record<string, unknown>)[c] !== undefined);
    const key = `${table}(${columns.join(',')})`;
    let statement = this.statements.get(key);
    if (!statement) {
      const names = columns.map((c) => `"${c}"`).join(', ');
      statement = this.prepare(
        `insert into "${table}" (${names}) values (${columns.map(() => '?').join(', ')})`,
      );
      this.statements.set(key, statement);
    }
    const result = statement.run(...columns.map((c) => (row as Record<string, unknown>)[c]));
    return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
  }

  /** Raw SQL for what Kysely does not express well (FTS5 MATCH, pragmas). */
  raw(sql: string): BetterSqlite3.Statement {
    return this.prepare(sql);
  }

  /** Runs fn in one transaction; nested calls join the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.sqlite.inTransaction) return fn();
    return this.sqlite.transaction(fn).immediate();
  }

  close(): void {
    this.statements.clear();
    if (this.sqlite.open) this.sqlite.close();
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.sqlite.prepare(sql);
      if (this.statements.size > 2000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
