import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/postgres/open.js';
import { searchWordsText } from '../../src/db/postgres/text-search.js';
import { searchWordsOf } from '../../src/db/search-words.js';
import { MessageStore } from '../../src/store/messages.js';
import { postgresBefore } from '../helpers/postgres-before.js';
import { testPostgres } from '../helpers/test-postgres.js';

/** Texts with words over 16 characters, some sharing their first 16. */
const TEXTS = [
  'deploy commit 3f2a9c0d1e4b5a69788796a5b4c3d2e1 internationalization',
  'deploy commit 3f2a9c0d1e4b5a69ffffffffffffffff internationally ñandúñandúñandúñandú',
  'deploy exactly sixteen: abcdefghijklmnop and abcdefghijklmnopq',
  'short words only, nothing to cut',
];

describe('PostgreSQL full-text rows written before migration 031 (every word whole)', () => {
  let url: string;

  beforeAll(async () => {
    url = await postgresBefore('031', async (client) => {
      for (const [i, text] of TEXTS.entries()) {
        await client.query(
          `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, subject, date, received_at, size)
           VALUES ($1, 1, $1, 1, 't', 'm', 'deploy', 'now', 'now', 1)`,
          [i + 1],
        );
        // As migration 029's layout wrote them: the distinct words, each whole.
        await client.query('INSERT INTO messages_fts (rowid, words) VALUES ($1, $2)', [
          i + 1,
          searchWordsOf(text).join(' '),
        ]);
      }
    });
  });

  afterAll(async () => {
    if (url) await (await testPostgres()).dropDatabase(url);
  });

  it('are cut by the migration as new rows are, and every long word is found whole as before', async () => {
    const db = await openPostgres(url);
    try {
      const rows = await db.rawAll<{ rowid: number; words: string }>(
        'SELECT rowid, words FROM messages_fts ORDER BY rowid',
      );
      expect(rows.map((r) => r.words)).toEqual(TEXTS.map((text) => searchWordsText(text)));
      expect(rows[0]!.words).toContain('\x01');
      expect(rows[3]!.words).not.toContain('\x01');

      const messages = new MessageStore(db);
      const found = async (q: string) =>
        (await messages.list({ inboxId: 1, words: q.split(' '), limit: 50 }))
          .map((m) => m.uid)
          .sort((a, b) => a - b);
      expect(await found('3f2a9c0d1e4b5a69788796a5b4c3d2e1')).toEqual([1]);
      expect(await found('3f2a9c0d1e4b5a69788796a5b4c3d2e1 deploy')).toEqual([1]);
      expect(await found('3f2a9c0d1e4b5a69')).toEqual([1, 2]);
      expect(await found('3f2a9c0d1e4b5a69f')).toEqual([2]);
      expect(await found('3f2a9c0d1e4b5a69788796a5b4c3d2e1ff')).toEqual([]);
      expect(await found('internationalization')).toEqual([1]);
      expect(await found('internationaliza')).toEqual([1]);
      expect(await found('internationalizatio deploy')).toEqual([]);
      expect(await found('nandunandunandunandu')).toEqual([2]);
      expect(await found('abcdefghijklmnop deploy')).toEqual([3]);
      expect(await found('abcdefghijklmnopq deploy')).toEqual([3]);
      expect(await found('abcdefghijklmnopqr')).toEqual([]);
      expect(await found('nothing')).toEqual([4]);
      expect(await found('deploy')).toEqual([1, 2, 3]);
    } finally {
      await db.close();
    }
  });
});
