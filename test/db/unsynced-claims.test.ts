// A SQLite connection's own setting: PostgreSQL runs rawAllUnsynced as rawAll.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-unsynced-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const FULL = 2;
const NORMAL = 1;

/** A database file with two rows to claim. */
function claimsFile(): string {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.db`);
  const sqlite = new BetterSqlite3(file);
  sqlite.exec(
    'CREATE TABLE claims (id INTEGER PRIMARY KEY, claim TEXT); INSERT INTO claims (id) VALUES (1), (2)',
  );
  sqlite.close();
  return file;
}

it('commits a claim that another connection reads, and leaves every later commit synced as configured', async () => {
  for (const level of ['full', 'normal'] as const) {
    const file = claimsFile();
    const db = openDatabase({ file, synchronous: level });
    try {
      const taken = await db.rawAllUnsynced<{ id: number }>(
        "UPDATE claims SET claim = 'clm_a' WHERE claim IS NULL RETURNING id",
      );
      expect(taken.map((r) => r.id).sort()).toEqual([1, 2]);
      // The level every other commit keeps: the claim's relaxed commit must not leak into them.
      expect(await db.rawFirst('PRAGMA synchronous')).toEqual({
        synchronous: level === 'full' ? FULL : NORMAL,
      });
      const other = new BetterSqlite3(file, { readonly: true });
      expect(other.prepare("SELECT count(*) AS n FROM claims WHERE claim = 'clm_a'").get()).toEqual({ n: 2 });
      other.close();
    } finally {
      await db.close();
    }
  }
});

it('joins the transaction it is called in: rolled back with it', async () => {
  const db = openDatabase({ file: claimsFile() });
  try {
    await expect(
      db.transaction(async () => {
        await db.rawAllUnsynced("UPDATE claims SET claim = 'clm_b' WHERE id = 1 RETURNING id");
        throw new Error('the send failed');
      }),
    ).rejects.toThrow('the send failed');
    expect(await db.rawFirst('SELECT claim FROM claims WHERE id = 1')).toEqual({ claim: null });
  } finally {
    await db.close();
  }
});
