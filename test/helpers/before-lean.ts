import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { knownMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { searchWordsText } from '../../src/db/postgres/text-search.js';
import { searchFields } from '../../src/store/search-fields.js';
import type { Answer } from './lean-answers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The answers the server gave on the fixture before the upgrade, and the API key they were asked with. */
export function answersBeforeLean(): { apiKey: string; answers: Answer[] } {
  return JSON.parse(
    zlib
      .gunzipSync(fs.readFileSync(path.join(root, 'fixtures/db/before-lean-answers.json.gz')))
      .toString('utf8'),
  ) as { apiKey: string; answers: Answer[] };
}

/**
 * SQL on a database in the layout before migration 017, whichever the engine: `?` placeholders,
 * rows as objects.
 */
export interface OldLayout {
  all(sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  run(sql: string, ...params: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/** The fixture's database (fixtures/db/before-lean.sql.gz) as a data directory's mailroom.db. */
export function beforeLeanSqlite(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'mailroom.db');
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  // The dump writes the full-text index's own tables, which defensive mode forbids.
  sqlite.unsafeMode(true);
  sqlite.exec(
    zlib.gunzipSync(fs.readFileSync(path.join(root, 'fixtures/db/before-lean.sql.gz'))).toString('utf8'),
  );
  sqlite.close();
  return file;
}

export function oldSqlite(file: string): OldLayout {
  const sqlite = new BetterSqlite3(file);
  return {
    all: async (sql, ...params) => sqlite.prepare(sql).all(...params) as Record<string, unknown>[],
    run: async (sql, ...params) => void sqlite.prepare(sql).run(...params),
    close: async () => void sqlite.close(),
  };
}

export async function oldPostgres(url: string): Promise<OldLayout> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    all: async (sql, ...params) =>
      (await client.query(numbered(sql), params)).rows as Record<string, unknown>[],
    run: async (sql, ...params) => void (await client.query(numbered(sql), params)),
    close: () => client.end(),
  };
}

/** Tables in an order that inserts no row before one it refers to. */
const TABLE_ORDER = [
  'users',
  'api_keys',
  'domains',
  'inboxes',
  'folders',
  'threads',
  'messages',
  'message_raw',
  'message_raw_parts',
  'attachments',
  'labels',
  'message_labels',
  'deliveries',
  'events',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
  'idempotency_keys',
  'settings',
];

/**
 * The fixture as the PostgreSQL release before migration 017 would hold it: that release's
 * migrations (migrations/postgres/ before 017), the fixture's rows as they are, the full-text
 * documents as that release wrote them, and the counters past the rows.
 */
export async function beforeLeanPostgres(url: string): Promise<void> {
  const shipped = path.join(root, 'migrations/postgres');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-before-017-'));
  try {
    for (const name of knownMigrations(shipped).filter((f) => f < '017'))
      fs.copyFileSync(path.join(shipped, name), path.join(dir, name));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await runPostgresMigrations(client, { dir });
      const file = beforeLeanSqlite(path.join(dir, 'fixture'));
      const sqlite = new BetterSqlite3(file, { readonly: true });
      try {
        for (const table of TABLE_ORDER) {
          const rows = sqlite.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
          for (const row of rows) {
            const columns = Object.keys(row);
            await client.query(
              `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
              Object.values(row),
            );
          }
        }
        const messages = sqlite
          .prepare(
            'SELECT id, subject, from_name, from_address, to_addrs, cc_addrs, bcc_addrs, text FROM messages',
          )
          .all() as Record<string, string>[];
        for (const m of messages) {
          const list = (json: string) => JSON.parse(json) as string[];
          const { subject, addresses, body } = searchFields(
            m.subject!,
            m.from_name!,
            m.from_address!,
            [...list(m.to_addrs!), ...list(m.cc_addrs!), ...list(m.bcc_addrs!)],
            m.text!,
          );
          // The tsvector that release stored (migration 029 keeps the same words as text).
          await client.query(
            "INSERT INTO messages_fts (rowid, document) VALUES ($1, array_to_tsvector(string_to_array($2, ' ')))",
            [m.id, searchWordsText(`${subject} ${addresses} ${body}`)],
          );
        }
      } finally {
        sqlite.close();
      }
    } finally {
      await client.end();
    }
    const db = await oldPostgres(url);
    await postgresCounters(db).finally(() => db.close());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** On PostgreSQL: every generated key's counter past the rows inserted with their keys. */
export async function postgresCounters(db: OldLayout): Promise<void> {
  const keys = [
    ['users', 'id'],
    ['inboxes', 'id'],
    ['folders', 'id'],
    ['messages', 'id'],
    ['labels', 'rowid'],
    ['deliveries', 'id'],
    ['events', 'seq'],
    ['webhooks', 'rowid'],
  ];
  for (const [table, column] of keys) {
    await db.run(
      `SELECT setval(pg_get_serial_sequence('${table}', '${column}'), coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`,
    );
  }
}

/**
 * More messages in the old layout, in an inbox of their own (bulk@mailroom.test): the fixture's
 * messages under 200 KB `rounds` times again, their sources with them. Enough of them make the upgrade take
 * the seconds a test needs to stop it half way. Answers how many it added.
 */
export async function addBulkMail(db: OldLayout, rounds: number): Promise<number> {
  const top = Number((await db.all('SELECT max(id) AS n FROM messages'))[0]!.n);
  await db.run(
    "INSERT INTO inboxes (address, user_id, kind, uid_next, created_at) VALUES ('bulk@mailroom.test', 1, 'local', ?, '2024-05-01T00:00:00.000Z')",
    top * rounds + 1,
  );
  const inbox = Number((await db.all("SELECT id FROM inboxes WHERE address = 'bulk@mailroom.test'"))[0]!.id);
  await db.run(
    "INSERT INTO folders (inbox_id, name, created_at) VALUES (?, 'INBOX', '2024-05-01T00:00:00.000Z')",
    inbox,
  );
  const folder = Number((await db.all('SELECT id FROM folders WHERE inbox_id = ?', inbox))[0]!.id);
  const columns =
    'message_id, in_reply_to, refs, from_address, from_name, to_addrs, cc_addrs, bcc_addrs, reply_to, subject, date, received_at, text, html, size, has_attachments, flags, seen, auth_results, delivery, preview, list_extracted_text';
  for (let round = 0; round < rounds; round++) {
    const offset = top * (round + 1);
    await db.run(
      // Threads of their own: the originals' threads count the messages that name them.
      `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, ${columns}) SELECT id + ?, ?, id + ?, ?, 'bulk-' || thread_id, ${columns} FROM messages WHERE id <= ? AND size < 200000`,
      offset,
      inbox,
      offset - top,
      folder,
      top,
    );
    const copied = 'SELECT id - ? FROM messages WHERE id > ? AND id <= ?';
    for (const [table, columns] of [
      ['message_raw', 'raw, parts'],
      ['message_raw_parts', 'part, bytes'],
    ]) {
      await db.run(
        `INSERT INTO ${table} (message_id, ${columns}) SELECT message_id + ?, ${columns} FROM ${table} WHERE message_id IN (${copied})`,
        offset,
        offset,
        offset,
        offset + top,
      );
    }
  }
  return Number((await db.all('SELECT count(*) AS n FROM messages WHERE inbox_id = ?', inbox))[0]!.n);
}
