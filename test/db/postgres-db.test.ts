import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { testPostgres } from '../helpers/test-postgres.js';

describe('PostgresDb', () => {
  let db: PostgresDb;
  beforeAll(async () => {
    db = await openPostgres(await (await testPostgres()).createDatabase());
  });
  afterAll(async () => db?.close());

  const users = async () =>
    (await db.rawAll<{ name: string }>('SELECT name FROM users ORDER BY id')).map((u) => u.name);

  it('answers the generated key of an insert, as a number, and bigint counts as numbers', async () => {
    const first = await db.insert('users', { name: 'ann', created_at: 'now' });
    const second = await db.rawRun('INSERT INTO users (name, created_at) VALUES (?, ?)', 'bob', 'now');
    expect(second.lastInsertRowid).toBe(first.lastInsertRowid + 1);
    expect(second.changes).toBe(1);
    expect(await db.rawFirst('SELECT count(*) AS n FROM users')).toEqual({ n: 2 });
    const settings = await db.insert('settings', { key: 'k', value: 'v' });
    expect(settings).toEqual({ changes: 1, lastInsertRowid: 0 });
  });

  it('runs every call inside a transaction on its connection, joins a nested one, and rolls all back on a throw', async () => {
    await expect(
      db.transaction(async () => {
        await db.rawRun('INSERT INTO users (name, created_at) VALUES (?, ?)', 'carol', 'now');
        await db.transaction(async () => {
          await db.rawRun('INSERT INTO users (name, created_at) VALUES (?, ?)', 'dave', 'now');
        });
        // Seen inside (same connection), not yet outside (another connection of the pool).
        expect(await users()).toContain('dave');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await users()).toEqual(['ann', 'bob']);
  });

  it('lets a timer started inside a transaction run on the pool after the commit', async () => {
    let later: Promise<string[]> | undefined;
    await db.transaction(async () => {
      await db.rawRun('INSERT INTO users (name, created_at) VALUES (?, ?)', 'erin', 'now');
      later = new Promise((resolve, reject) => setTimeout(() => users().then(resolve, reject), 50));
    });
    expect(await later).toContain('erin');
  });

  it('does not make calls from outside wait for an open transaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const open = db.transaction(async () => {
      await db.rawRun('INSERT INTO users (name, created_at) VALUES (?, ?)', 'frank', 'now');
      await held;
    });
    expect(await users()).not.toContain('frank');
    release();
    await open;
    expect(await users()).toContain('frank');
  });
});
