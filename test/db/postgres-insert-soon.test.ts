import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { testPostgres } from '../helpers/test-postgres.js';

/** The texts of the statements pg sends while `work` runs (BEGIN and COMMIT left out). */
async function statementsOf(work: () => Promise<void>): Promise<string[]> {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first: unknown = args[0];
    const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
    if (!/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(text)) sent.push(text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
}

// Rows a group commit files go to PostgreSQL in one statement per table (Db.insertSoon), and a
// transaction reserves uids in blocks (InboxStore.allocateUids): fewer round trips in the chain
// every message of a batch waits on (docs/decisions/postgresql-performance.md, "The chain of a batch").
describe('PostgresDb.insertSoon and readPast', () => {
  let db: PostgresDb;
  beforeAll(async () => {
    db = await openPostgres(await (await testPostgres()).createDatabase());
  });
  afterAll(async () => db?.close());

  const names = async () =>
    (await db.rawAll<{ name: string }>('SELECT name FROM users ORDER BY id')).map((u) => u.name);
  const user = (name: string) => ({ name, created_at: 'now' });

  it('writes the rows of a transaction in one statement, with keys known at once, before the next statement', async () => {
    let keys: number[] = [];
    let seenInside: string[] = [];
    const sent = await statementsOf(async () => {
      await db.transaction(async () => {
        keys = [];
        for (const name of ['ann', 'bob', 'cid', 'dee', 'eve'])
          keys.push(await db.insertSoon('users', user(name)));
        seenInside = await names();
      });
    });
    expect(seenInside).toEqual(['ann', 'bob', 'cid', 'dee', 'eve']);
    expect(new Set(keys).size).toBe(5);
    expect(sent.filter((s) => /insert into "users"/i.test(s))).toHaveLength(1);
    const stored = await db.rawAll<{ id: number; name: string }>('SELECT id, name FROM users ORDER BY id');
    expect(stored.map((u) => u.id)).toEqual(keys);
  });

  it('lets a read that says it cannot see the queued rows run without writing them first', async () => {
    await db.transaction(async () => {
      await db.insertSoon('users', user('fay'));
      expect(await db.readPast(() => false, names)).not.toContain('fay');
      expect(await db.readPast((table, row) => table === 'users' && row.name === 'fay', names)).toContain(
        'fay',
      );
    });
    expect(await names()).toContain('fay');
  });

  it('writes what is still queued at COMMIT, and a queued row that fails rolls the whole transaction back', async () => {
    await db.transaction(async () => {
      await db.insertSoon('settings', { key: 'soon', value: 'kept' });
    });
    expect(await db.rawFirst('SELECT value FROM settings WHERE key = ?', 'soon')).toEqual({ value: 'kept' });
    await expect(
      db.transaction(async () => {
        await db.insertSoon('users', user('gus'));
        await db.insertSoon('settings', { key: 'soon', value: 'twice' });
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await names()).not.toContain('gus');
    expect(await db.rawFirst('SELECT value FROM settings WHERE key = ?', 'soon')).toEqual({ value: 'kept' });
  });

  it('writes at once outside a transaction', async () => {
    const id = await db.insertSoon('users', user('hal'));
    expect(await db.rawFirst('SELECT name FROM users WHERE id = ?', id)).toEqual({ name: 'hal' });
  });
});
