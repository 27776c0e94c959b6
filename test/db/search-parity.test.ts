import { queryBuilder } from '../../src/db/query-builder.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connection.js';
import { openDatabase } from '../../src/db/open.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { searchWords } from '../../src/mailbox/reading/read.js';
import { searchFields } from '../../src/store/search-fields.js';
import { postgresDialect } from '../../src/db/postgres/dialect.js';
import { testPostgres } from '../helpers/test-postgres.js';

/** Many distinct words: PostgreSQL's tsvector has limits FTS5 has not (1 MB, 2 KB a word). */
const manyWords = Array.from({ length: 40_000 }, (_, i) => `w${i.toString(36)}x`).join(' ');

/** What an email gives the index (see fileMessage): subject, addresses, body text. */
const DOCUMENTS: [subject: string, addresses: string, body: string][] = [
  ['Café résumé', 'Alice Liddell alice@example.com', 'see https://www.example.org/path?q=1 for foo-bar'],
  ['ÉTÉ 2026', 'bob.smith@mail.example.net', "don't forget the naïve_thing at 3.14, l’été"],
  ['東京タワー', 'carol@example.com', 'abc123 Ünïcödé and plain ascii'],
  ['Invoice #4411', 'billing@shop.test', 'Total: 12,50 EUR (VAT incl.) — thanks!'],
  // Letters PostgreSQL's unaccent folds and FTS5 keeps; decomposed accents; Greek final sigma.
  ['Søren Ærø Straße', 'Łukasz <lukasz@example.pl>', 'Ёлка й ΣΊΣΥΦΟΣ cafe\u0301s µm'],
  // Marks FTS5 treats as separators (Hebrew points, Devanagari signs), emoji, symbols.
  ['שָׁלוֹם नमस्ते', 'dev@example.in', 'ship it 🚀 now ½ ² ①② x\u200By'],
  // A long text: the index holds its first 256 KB only, on both engines.
  ['long', 'long@example.com', `${'early words '.repeat(30_000)}zebraword`],
  ['many', 'many@example.com', `${manyWords} ${'q'.repeat(3000)} tailword`],
  // Words of 16 characters and more, which PostgreSQL's index holds cut to 16 (migration 031).
  [
    'Deploy',
    'ci@example.com',
    'commit 3f2a9c0d1e4b5a69788796a5b4c3d2e1 internationalization ñandúñandúñandúñandú',
  ],
  ['Deploy', 'ci@example.com', 'commit 3f2a9c0d1e4b5a69ffffffffffffffff internationally'],
];

/** Queries as a user types them into ?q= (every word must appear; the last one is a prefix). */
const QUERIES = [
  'cafe',
  'CAFÉ',
  'resume',
  'caf',
  'alice',
  'alice example',
  'exam alice',
  'example com',
  'example.com',
  'liddell@',
  'smith',
  'www',
  'path',
  'foo',
  'bar',
  'don',
  'dont',
  'naive',
  'thing',
  '3',
  '14',
  'ete',
  'l ete',
  '東京',
  '東京タワー',
  'abc',
  'abc123',
  'unicode',
  '4411',
  '#4411',
  'vat incl',
  'thanks',
  'eur 12',
  'nothing here',
  'søren',
  'soren',
  'aero',
  'ærø',
  'strasse',
  'straße',
  'lukasz',
  'łukasz',
  'ёлка',
  'елка',
  'й',
  'сисифос',
  'σίσυφοσ',
  'ΣΊΣΥΦΟΣ',
  'cafes',
  'cafés',
  'μm',
  'µm',
  'שלום',
  'ש',
  'נמ',
  'नमस',
  'ship 🚀',
  '½',
  '①②',
  'x y',
  'early',
  'zebraword',
  'w0x',
  'wz3x',
  'tailword',
  'many w1',
  'long early',
  '3f2a9c0d1e4b5a69788796a5b4c3d2e1',
  '3f2a9c0d1e4b5a69',
  '3f2a9c0d1e4b5a6978',
  '3f2a9c0d1e4b5a69ffffffffffffffff commit',
  '3f2a9c0d1e4b5a69788796a5b4c3d2e1ff',
  'internationalization',
  'internationaliza',
  'internationalizatio deploy',
  'internationally deploy',
  'nandunandunandunandu',
  'ñandúñandúñandúña',
  'ñandúñandúñandúñandúñ commit',
  // A word over 2,046 bytes, more than a tsvector holds: found whole, and by its start.
  'q'.repeat(3000),
  'q'.repeat(2500),
];

/** PostgreSQL's SQL, to compile the dialect's condition without a server. */
const postgresBuilder = queryBuilder('postgres');

describe('full-text search on SQLite (FTS5) and PostgreSQL (tsvector)', () => {
  let sqlite: Db;
  let client: pg.Client;

  beforeAll(async () => {
    sqlite = openDatabase({ file: ':memory:' });
    client = new pg.Client({ connectionString: await (await testPostgres()).createDatabase() });
    await client.connect();
    await runPostgresMigrations(client);
    await client.query(`
      INSERT INTO users (id, name, created_at) VALUES (1, 'u', 'now');
      INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'u@x.test', 1, 'local', 'now');
      INSERT INTO folders (id, inbox_id, name, created_at) VALUES (1, 1, 'INBOX', 'now');`);
    await sqlite.rawRun("INSERT INTO users (id, name, created_at) VALUES (1, 'u', 'now')");
    await sqlite.rawRun(
      "INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'u@x.test', 1, 'local', 'now')",
    );
    await sqlite.rawRun("INSERT INTO folders (id, inbox_id, name, created_at) VALUES (1, 1, 'INBOX', 'now')");
    for (const [i, [subject, from, text]] of DOCUMENTS.entries()) {
      const id = i + 1;
      // As fileMessage gives them to the store (the body cut to its first 256 KB).
      const { addresses, body } = searchFields(subject, from, '', [], text);
      await sqlite.rawRun(
        `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, date, received_at, size)
         VALUES (?, 1, ?, 1, 't', 'm', 'now', 'now', 1)`,
        id,
        id,
      );
      await sqlite.rawRun(
        'INSERT INTO messages_fts (rowid, subject, addresses, body) VALUES (?, ?, ?, ?)',
        id,
        subject,
        addresses,
        body,
      );
      await client.query(
        `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, date, received_at, size)
         VALUES ($1, 1, $1, 1, 't', 'm', 'now', 'now', 1)`,
        [id],
      );
      // As the store indexes a message on PostgreSQL.
      const row = postgresDialect.searchIndexRow(id, { subject, addresses, body });
      const columns = Object.keys(row);
      await client.query(
        `INSERT INTO messages_fts (${columns.join(', ')}) VALUES (${columns.map((_, n) => `$${n + 1}`).join(', ')})`,
        Object.values(row),
      );
    }
  });

  afterAll(async () => {
    await sqlite?.close();
    await client?.end();
  });

  it('find the same emails for the same words', async () => {
    const found = async (q: string) => {
      // Each engine's dialect, as the store's message list uses it.
      const words = searchWords(q);
      const inSqlite = (
        await sqlite.all(
          sqlite.kysely
            .selectFrom('messages')
            .select('id')
            .where(sqlite.dialect.fullTextMatch(words))
            .orderBy('id'),
        )
      ).map((r) => r.id);
      const onPostgres = postgresBuilder
        .selectFrom('messages')
        .select('id')
        .where(postgresDialect.fullTextMatch(words))
        .orderBy('id')
        .compile();
      const { rows } = await client.query<{ id: string }>(onPostgres.sql, [...onPostgres.parameters]);
      return { q, sqlite: inSqlite, postgres: rows.map((r) => Number(r.id)) };
    };
    const results = await Promise.all(QUERIES.map(found));
    expect(results.filter((r) => r.sqlite.length > 0).length).toBeGreaterThan(QUERIES.length / 2);
    for (const r of results) expect({ q: r.q, ids: r.postgres }).toEqual({ q: r.q, ids: r.sqlite });
  });

  it('keep none of the text on PostgreSQL, as a contentless FTS5 table keeps none', async () => {
    const { rows } = await client.query(
      'SELECT count(*)::int AS n FROM messages_fts WHERE subject IS NOT NULL OR addresses IS NOT NULL OR body IS NOT NULL',
    );
    expect(rows[0].n).toBe(0);
  });
});
