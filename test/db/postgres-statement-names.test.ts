import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { testPostgres } from '../helpers/test-postgres.js';

// A list page on PostgreSQL is three statements; parsing and planning them each time was most of
// the backend's CPU a page. Statements run often are prepared once per connection instead.
describe('statements run often on PostgreSQL are prepared once per connection', () => {
  let url: string;
  let db: PostgresDb;
  let store: Store;
  // No inbox needs to exist for a page of its mail to be read (an empty one).
  const inboxId = 1;

  beforeAll(async () => {
    url = await (await testPostgres()).createDatabase();
    // One connection: what it has prepared is what pg_prepared_statements shows it.
    db = await openPostgres(url, { max: 1 });
    store = createStore(db, 'statement-names-secret-0123456789abcdef');
  });

  afterAll(async () => {
    await db?.close();
    if (url) await (await testPostgres()).dropDatabase(url);
  });

  /** The texts of the statements this connection keeps prepared. */
  async function prepared(): Promise<string[]> {
    const rows = await db.rawAll<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    return rows.map((r) => r.statement);
  }

  const runs = async (times: number, run: () => Promise<unknown>) => {
    for (let i = 0; i < times; i++) await run();
  };

  it('prepares a list page and a rate count after five runs, not before', async () => {
    const page = () => store.messages.list({ inboxId, limit: 51 });
    const count = () => store.rateWindows.hit('key:names', 60_000);
    await runs(4, page);
    await runs(4, count);
    expect((await prepared()).filter((s) => /from "messages"|rate_windows/i.test(s))).toEqual([]);
    await runs(2, page);
    await runs(2, count);
    const kept = await prepared();
    expect(kept.filter((s) => /from "messages"/i.test(s))).toHaveLength(1);
    expect(kept.filter((s) => /INSERT INTO rate_windows/.test(s))).toHaveLength(1);
    // Still counting: the kept plan runs with each call's values.
    expect((await store.rateWindows.hit('key:names', 60_000)).hits).toBe(7);
  });

  it('never prepares a search, whose plan depends on its words', async () => {
    await runs(10, () => store.messages.list({ inboxId, words: ['invoice'], limit: 51 }));
    expect((await prepared()).filter((s) => s.includes('@@'))).toEqual([]);
  });

  it("runs a prepared SELECT * again after another node's migration adds a column", async () => {
    await db.rawRun('CREATE TABLE shapes (id integer PRIMARY KEY, name text)');
    await db.rawRun("INSERT INTO shapes VALUES (1, 'circle')");
    const read = () => db.rawFirst<Record<string, unknown>>('SELECT * FROM shapes WHERE id = ?', 1);
    await runs(6, read);
    expect((await prepared()).filter((s) => s.includes('FROM shapes'))).toHaveLength(1);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('ALTER TABLE shapes ADD COLUMN sides integer NOT NULL DEFAULT 0');
    await other.end();
    // PostgreSQL refuses the kept plan ("cached plan must not change result type"): prepared again.
    expect(await read()).toEqual({ id: 1, name: 'circle', sides: 0 });
  });

  it('runs a statement unnamed from then on when the server no longer has it (a pooler between)', async () => {
    await db.rawRun('CREATE TABLE pooled (id integer PRIMARY KEY)');
    await db.rawRun('INSERT INTO pooled VALUES (7)');
    const read = () => db.rawFirst<{ id: number }>('SELECT id FROM pooled WHERE id = ?', 7);
    await runs(6, read);
    expect((await prepared()).filter((s) => s.includes('FROM pooled'))).toHaveLength(1);
    // As PgBouncer in transaction mode does: the next statement meets a server connection that
    // never prepared it.
    await db.rawRun('DEALLOCATE ALL');
    expect(await read()).toEqual({ id: 7 });
    await runs(6, read);
    expect((await prepared()).filter((s) => s.includes('FROM pooled'))).toEqual([]);
  });
});
