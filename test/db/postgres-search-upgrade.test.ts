import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { MessageStore } from '../../src/store/messages.js';
import { rebuildOldSearchRows } from '../../src/store/search-rebuild.js';
import { testPostgres } from '../helpers/test-postgres.js';

const shipped = fileURLToPath(new URL('../../migrations/postgres/', import.meta.url));

describe('PostgreSQL full-text index made by an older version (before migration 010)', () => {
  let url: string;
  let tmp: string;

  beforeAll(async () => {
    // A database as the release before 010 left it: documents made by the trigger.
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pg-before-010-'));
    for (const file of knownMigrations(shipped).filter((f) => f < '010')) {
      fs.copyFileSync(path.join(shipped, file), path.join(tmp, file));
    }
    url = await (await testPostgres()).createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await runPostgresMigrations(client, { dir: tmp });
      await client.query(`
        INSERT INTO users (id, name, created_at) VALUES (1, 'u', 'now');
        INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'u@x.test', 1, 'local', 'now');
        INSERT INTO folders (id, inbox_id, name, created_at) VALUES (1, 1, 'INBOX', 'now');
        -- As a server that made these rows would have left the counters (later migrations add rows).
        SELECT setval(pg_get_serial_sequence('users', 'id'), 1), setval(pg_get_serial_sequence('inboxes', 'id'), 1),
               setval(pg_get_serial_sequence('folders', 'id'), 1);`);
      const texts = ['Hello from Søren', 'Straße plans', 'plain words'];
      for (const [i, subject] of texts.entries()) {
        await client.query(
          `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, subject, date, received_at, size)
           VALUES ($1, 1, $1, 1, 't', 'm', $2, 'now', 'now', 1)`,
          [i + 1, subject],
        );
        await client.query(
          'INSERT INTO messages_fts (rowid, subject, addresses, body) VALUES ($1, $2, $3, $4)',
          [i + 1, subject, '', ''],
        );
      }
    } finally {
      await client.end();
    }
  });

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('are rebuilt with FTS5 words at the next start, and searched as SQLite searches them', async () => {
    const db = await openPostgres(url);
    try {
      const messages = new MessageStore(db);
      const found = async (...words: string[]) =>
        (await messages.list({ inboxId: 1, words, limit: 10 })).map((m) => m.uid).sort();
      // Before the rebuild, old documents still answer plain words.
      expect(await found('plain')).toEqual([3]);
      expect(await rebuildOldSearchRows(db)).toBe(3);
      // FTS5 keeps ø and ß: 'søren' finds it, 'soren' does not (PostgreSQL's unaccent made 'soren').
      expect(await found('søren')).toEqual([1]);
      expect(await found('soren')).toEqual([]);
      expect(await found('straße')).toEqual([2]);
      expect(await found('hello')).toEqual([1]);
      expect(await found('plain', 'wor')).toEqual([3]);
      // Done once: the next start has nothing to rebuild.
      expect(await rebuildOldSearchRows(db)).toBe(0);
      const mark = await db.rawFirst("SELECT value FROM settings WHERE key = 'search_rebuild_through'");
      expect(mark).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
