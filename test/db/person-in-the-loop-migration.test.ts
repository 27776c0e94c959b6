import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownMigrations, runMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { SqliteDb } from '../../src/db/sqlite.js';
import { onPostgres } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const shipped = path.join(root, onPostgres ? 'migrations/postgres' : 'migrations');

/** The mail an inbox had before migration 024, in the columns every release since 017 has. */
const BEFORE = [
  "INSERT INTO users (id, name, created_at) VALUES (1, 'owner', '2026-01-01T00:00:00.000Z')",
  "INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'agent@mailroom.test', 1, 'local', '2026-01-01T00:00:00.000Z')",
  ...['INBOX:\\Inbox', 'Sent:\\Sent', 'Drafts:\\Drafts', 'Spam:\\Junk', 'outbox:'].map((f) => {
    const [name, use] = f.split(':');
    return `INSERT INTO folders (inbox_id, name, special_use, created_at) VALUES (1, '${name}', ${use ? `'${use}'` : 'NULL'}, '2026-01-01T00:00:00.000Z')`;
  }),
  ...[
    [1, 'INBOX', 'Friend@Example.com', '[]', '[]'],
    [2, 'Spam', 'spammer@example.com', '[]', '[]'],
    [3, 'Sent', 'agent@mailroom.test', '["told@example.com"]', '["copied@example.com"]'],
    [4, 'Drafts', 'agent@mailroom.test', '["drafted@example.com"]', '[]'],
  ].map(
    ([uid, folder, from, to, cc]) =>
      `INSERT INTO messages (inbox_id, uid, folder_id, thread_id, message_id, from_address, to_addrs, cc_addrs, date, received_at, size, list_text)
       VALUES (1, ${uid}, (SELECT id FROM folders WHERE name = '${folder}'), 't${uid}', '<m${uid}@x>', '${from}', '${to}', '${cc}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 10, '')`,
  ),
];

// Migration 024 on a database with mail: the correspondents approve_new asks are filled from it,
// and every inbox gets its Outbox (a folder already named so moves aside).
describe('migration 024 on mail stored before it', () => {
  let tmp: string;
  let query: (sql: string) => Promise<Record<string, unknown>[]>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-024-'));
    for (const file of knownMigrations(shipped).filter((f) => f < '024')) {
      fs.copyFileSync(path.join(shipped, file), path.join(tmp, file));
    }
    if (onPostgres) {
      const pool = new pg.Pool({ connectionString: await (await testPostgres()).createDatabase(), max: 1 });
      await runPostgresMigrations(pool, { dir: tmp });
      for (const sql of BEFORE) await pool.query(sql);
      await runPostgresMigrations(pool);
      query = async (sql) => (await pool.query(sql)).rows as Record<string, unknown>[];
      close = () => pool.end();
    } else {
      const db = new SqliteDb(new BetterSqlite3(':memory:'));
      runMigrations(db, { dir: tmp });
      for (const sql of BEFORE) db.sqlite.exec(sql);
      runMigrations(db);
      query = async (sql) => db.sqlite.prepare(sql).all() as Record<string, unknown>[];
      close = async () => {
        db.sqlite.close();
      };
    }
  });
  afterAll(async () => {
    await close?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('knows who the inbox received mail from outside Spam and sent mail to, and no one else', async () => {
    const rows = await query('SELECT address FROM correspondents WHERE inbox_id = 1 ORDER BY address');
    expect(rows.map((r) => r.address)).toEqual([
      'copied@example.com',
      'friend@example.com',
      'told@example.com',
    ]);
  });

  it('gives the inbox its Outbox, moving a folder of that name aside', async () => {
    const rows = await query('SELECT name, special_use FROM folders WHERE inbox_id = 1 ORDER BY id');
    expect(rows.map((r) => [r.name, r.special_use])).toEqual([
      ['INBOX', '\\Inbox'],
      ['Sent', '\\Sent'],
      ['Drafts', '\\Drafts'],
      ['Spam', '\\Junk'],
      ['outbox (before Outbox)', null],
      ['Outbox', '\\Outbox'],
    ]);
  });
});
