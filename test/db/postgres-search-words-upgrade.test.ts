import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK_KEY } from '../../src/db/postgres/lock-keys.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { convertSearchWords } from '../../src/db/postgres/search-words-upgrade.js';
import { searchWordsInOrder, searchWordsOf } from '../../src/db/search-words.js';
import { MessageStore } from '../../src/store/messages.js';
import { searchFields } from '../../src/store/search-fields.js';
import { postgresBefore } from '../helpers/postgres-before.js';
import { testPostgres } from '../helpers/test-postgres.js';

/** Mail as stored before migration 029: subject and text of each message. */
const MAIL: [string, string][] = [
  ['Hello from Søren', 'Straße plans for the quarterly budget'],
  ["O'Brien's invoice", 'Invoice 2026-0042 attached; pay by Friday. back\\slash "quoted"'],
  ['会議の議題', '来週の会議について、予算の確認をお願いします。'],
  ['Привет', 'Встреча в понедельник, бюджет утверждён'],
  [
    'Tracking',
    `Read more: https://click.example.com/ls/click?upn=${'Ab9_'.repeat(40)} and ${'x'.repeat(3000)}`,
  ],
  ['', ''],
  ['Budget review', 'The budgets are final; commit 3f2a9c0d1e4b5a69788796a5b4c3d2e1f0a9b8c7'],
];

/** A search of these words in the layout before 029, as that release wrote its query. */
const QUERIES: string[][] = [
  ['budget'],
  ['budg'],
  ['søren'],
  ['soren'],
  ['straße'],
  ['o', 'brien'],
  ['invoice', '2026'],
  ['back', 'slash'],
  ['quoted'],
  ['会議'],
  ['бюджет'],
  ['upn', 'ab9'],
  ['3f2a9c0d1e4b5a69788796a5b4c3d2e1f0a9b8c7'],
  ['x'],
  ['nothing', 'here'],
];

const quoted = (w: string) => `'${w.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** The tsvector text the release before 029 stored (its tsvectorText), for the fixture's rows. */
const oldDocument = (text: string) =>
  searchWordsOf(text)
    .filter((w) => Buffer.byteLength(w) <= 2046)
    .map(quoted)
    .join(' ');

/** The tsquery text that release searched with: every word whole, the last one as a prefix. */
const oldQuery = (words: string[]) =>
  words
    .flatMap((word) => searchWordsInOrder(word))
    .map((w, i, all) => (i === all.length - 1 ? `${quoted(w)}:*` : quoted(w)))
    .join(' & ');

describe('PostgreSQL full-text rows written before migration 029 (a stored tsvector)', () => {
  let url: string;
  const before = new Map<string, number[]>();
  let documentBytes = 0;

  beforeAll(async () => {
    url = await postgresBefore('029', async (client) => {
      for (const [i, [subject, text]] of MAIL.entries()) {
        await client.query(
          `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, subject, from_address, date, received_at, size)
           VALUES ($1, 1, $1, 1, 't', 'm', $2, 'sender@example.com', 'now', 'now', 1)`,
          [i + 1, subject],
        );
        const f = searchFields(subject, '', 'sender@example.com', ['u@x.test'], text);
        await client.query('INSERT INTO messages_fts (rowid, document) VALUES ($1, $2::tsvector)', [
          i + 1,
          oldDocument(`${f.subject} ${f.addresses} ${f.body}`),
        ]);
      }
      for (const words of QUERIES) {
        const found = await client.query<{ rowid: string }>(
          'SELECT rowid FROM messages_fts WHERE document @@ CAST($1 AS tsquery) ORDER BY rowid',
          [oldQuery(words)],
        );
        before.set(
          words.join(' '),
          found.rows.map((r) => Number(r.rowid)),
        );
      }
      const size = await client.query<{ n: string }>(
        'SELECT sum(pg_column_size(document)) AS n FROM messages_fts',
      );
      documentBytes = Number(size.rows[0]!.n);
    });
  });

  afterAll(async () => {
    if (url) await (await testPostgres()).dropDatabase(url);
  });

  it('are converted at the next start, a stopped one included, and every search finds what it found before', async () => {
    const db = await openPostgres(url);
    try {
      // A start stopped after its first batch: some rows are converted, the rest are not.
      await db.rawRun(
        "UPDATE messages_fts SET words = mailroom_search_layout(array_to_string(tsvector_to_array(document), ' ')), document = NULL WHERE rowid <= 3",
      );
      const lines: string[] = [];
      expect(await convertSearchWords(db.pool, MIGRATION_LOCK_KEY, { info: (m) => lines.push(m) })).toBe(
        MAIL.length - 3,
      );
      expect(lines).toContain(
        `converted the full-text rows of ${MAIL.length - 3} of ${MAIL.length - 3} message(s)`,
      );

      const messages = new MessageStore(db);
      const found = async (words: string[]) =>
        (await messages.list({ inboxId: 1, words, limit: 50 })).map((m) => m.uid).sort((a, b) => a - b);
      for (const words of QUERIES)
        expect([words, await found(words)]).toEqual([words, before.get(words.join(' '))]);
      // The queries are not vacuous: they find what each message holds.
      expect(await found(['budget'])).toEqual([1, 7]);
      expect(await found(['3f2a9c0d1e4b5a69788796a5b4c3d2e1f0a9b8c7'])).toEqual([7]);
      expect(await found(['бюджет'])).toEqual([4]);

      // The tsvector is no longer stored: the words as text take less room than it did.
      const columns = await db.rawAll<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'messages_fts'",
      );
      expect(columns.map((c) => c.column_name)).not.toContain('document');
      const words = await db.rawFirst<{ n: number }>(
        'SELECT sum(pg_column_size(words)) AS n FROM messages_fts',
      );
      expect(Number(words!.n)).toBeLessThan(documentBytes);

      // Done once: the next start has nothing to convert, and the mark is gone.
      expect(await convertSearchWords(db.pool, MIGRATION_LOCK_KEY, { info: () => {} })).toBe(0);
      expect(await db.rawFirst("SELECT 1 FROM settings WHERE key = 'search_words'")).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it('finds mail filed after the upgrade through the index, and forgets it once deleted', async () => {
    const db = await openPostgres(url);
    try {
      const messages = new MessageStore(db);
      await db.rawRun(
        `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, subject, date, received_at, size)
         VALUES (100, 1, 100, 1, 't', 'm', 'Zebra crossing', 'now', 'now', 1)`,
      );
      await messages.index([{ id: 100, fields: searchFields('Zebra crossing', '', '', [], 'Naïve café') }]);
      const found = async (words: string[]) =>
        (await messages.list({ inboxId: 1, words, limit: 50 })).map((m) => m.uid);
      expect(await found(['zebra', 'naive', 'caf'])).toEqual([100]);
      // The search's expression is the index's own (on a table this small the planner would scan it).
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          "EXPLAIN SELECT rowid FROM messages_fts WHERE mailroom_search_tokens(words) @@ CAST('''zebra'':*' AS tsquery)",
        );
        expect(plan.rows.map((p) => p['QUERY PLAN']).join('\n')).toContain(
          'Bitmap Index Scan on messages_fts_tokens',
        );
      } finally {
        await client.end();
      }
      await db.rawRun('DELETE FROM messages WHERE id = 100');
      expect(await found(['zebra'])).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
