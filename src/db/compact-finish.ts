import type { Queryable } from './postgres/one-client.js';
import type { SqliteDb } from './sqlite.js';

/**
 * The last step of migration 017 (the compact layout of mail, src/store/compact-conversion.ts),
 * taken once no message is left in the old layout: the old copies of the text, the html and the
 * source go, and on SQLite the full-text index the conversion rebuilt takes the place of the old
 * one. A database with no mail takes it at once, when its migrations run; one with mail, when
 * the store has converted it. Marked by the `compact_storage` setting, which it removes.
 */
export const COMPACT_MARK = 'compact_storage';

/**
 * SQLite's full-text index since migration 017: FTS5 contentless, keeping which messages hold a
 * word in which column and no positions (`detail = column`, half the size): a search asks whether
 * each word is there, never for a phrase (sqlite-dialect.ts). `detail = none` is a third smaller
 * again, but answers a prefix (the last word of every search) three to five times slower.
 */
export const SQLITE_FTS_DEFINITION =
  "fts5(subject, addresses, body, content = '', contentless_delete = 1, detail = column, tokenize = 'unicode61 remove_diacritics 2')";

/** Where the conversion builds that index on SQLite, until it replaces messages_fts. */
export const SQLITE_FTS_NEXT = 'messages_fts_next';

const OLD_TABLES = ['message_raw_parts', 'message_raw'];
const OLD_COLUMNS = ['text', 'html'];
const LEFT_TO_CONVERT = 'SELECT 1 FROM messages WHERE source_id IS NULL LIMIT 1';

/** On SQLite: takes the last step if it is due and nothing is left to convert; whether it did. */
export function finishCompactSqlite(db: SqliteDb): boolean {
  const { sqlite } = db;
  const due = () =>
    sqlite.prepare('SELECT 1 FROM settings WHERE key = ?').get(COMPACT_MARK) !== undefined &&
    sqlite.prepare(LEFT_TO_CONVERT).get() === undefined;
  if (!due()) return false;
  return db.immediate(() => {
    if (!due()) return false;
    const hasTable = (name: string) =>
      sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
    sqlite.exec('DROP TABLE IF EXISTS messages_fts');
    if (hasTable(SQLITE_FTS_NEXT)) sqlite.exec(`ALTER TABLE ${SQLITE_FTS_NEXT} RENAME TO messages_fts`);
    else sqlite.exec(`CREATE VIRTUAL TABLE messages_fts USING ${SQLITE_FTS_DEFINITION}`);
    for (const table of OLD_TABLES) sqlite.exec(`DROP TABLE IF EXISTS ${table}`);
    const columns = (
      sqlite.prepare("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[]
    ).map((c) => c.name);
    for (const column of OLD_COLUMNS)
      if (columns.includes(column)) sqlite.exec(`ALTER TABLE messages DROP COLUMN ${column}`);
    sqlite.prepare('DELETE FROM settings WHERE key = ?').run(COMPACT_MARK);
    return true;
  });
}

/**
 * On PostgreSQL, as finishCompactSqlite: holding the migration lock (`lockKey`), so nodes
 * starting together take it once.
 */
export async function finishCompactPostgres(db: Queryable, lockKey: bigint): Promise<boolean> {
  // Loaded here: SQLite's migrations import this file, and pg loads only for PostgreSQL.
  const { onceWhenDue } = await import('./postgres/one-client.js');
  return onceWhenDue(
    db,
    lockKey,
    async (client) =>
      (await client.query('SELECT 1 FROM settings WHERE key = $1', [COMPACT_MARK])).rowCount === 1 &&
      (await client.query(LEFT_TO_CONVERT)).rowCount === 0,
    async (client) => {
      for (const table of OLD_TABLES) await client.query(`DROP TABLE IF EXISTS ${table}`);
      for (const column of OLD_COLUMNS)
        await client.query(`ALTER TABLE messages DROP COLUMN IF EXISTS ${column}`);
      await client.query('DELETE FROM settings WHERE key = $1', [COMPACT_MARK]);
    },
  );
}
