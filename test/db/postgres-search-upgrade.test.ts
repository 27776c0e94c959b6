import { beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK_KEY } from '../../src/db/postgres/lock-keys.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { convertSearchWords } from '../../src/db/postgres/search-words-upgrade.js';
import { MessageStore } from '../../src/store/messages.js';
import { rebuildOldSearchRows } from '../../src/store/search-rebuild.js';
import { postgresBefore } from '../helpers/postgres-before.js';

describe('PostgreSQL full-text index made by an older version (before migration 010)', () => {
  let url: string;

  beforeAll(async () => {
    // A database as the release before 010 left it: documents made by the trigger.
    url = await postgresBefore('010', async (client) => {
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
    });
  });

  it('are rebuilt with FTS5 words at the next start, and searched as SQLite searches them', async () => {
    const db = await openPostgres(url);
    try {
      const messages = new MessageStore(db);
      const found = async (...words: string[]) =>
        (await messages.list({ inboxId: 1, words, limit: 10 })).map((m) => m.uid).sort();
      // As a start does it (openStore): the rebuild writes the words of migration 029 itself.
      expect(await rebuildOldSearchRows(db)).toBe(3);
      expect(await convertSearchWords(db.pool, MIGRATION_LOCK_KEY, { info: () => {} })).toBe(0);
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
