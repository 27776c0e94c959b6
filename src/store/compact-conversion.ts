import {
  COMPACT_MARK,
  SQLITE_FTS_DEFINITION,
  SQLITE_FTS_NEXT,
  finishCompactPostgres,
  finishCompactSqlite,
} from '../db/compact-finish.js';
import type { Db } from '../db/connection.js';
import { COMPACT_CONVERSION_LOCK_KEY, MIGRATION_LOCK_KEY } from '../db/postgres/lock-keys.js';
import type { PostgresDb } from '../db/postgres/db.js';
import type { SqliteDb } from '../db/sqlite.js';
import { listColumnsOf, storedPreview } from '../mail/list-columns.js';
import { packMessage, writeSource } from './message-sources.js';
import { searchFieldsOfRow } from './search-fields.js';

/** Messages a batch converts at most, and the bytes of source it reads at most (one big message goes alone). */
const BATCH_MESSAGES = 500;
const BATCH_BYTES = 32 * 1024 * 1024;

interface OldMessage {
  id: number;
  subject: string;
  from_name: string;
  from_address: string;
  to_addrs: string;
  cc_addrs: string;
  bcc_addrs: string;
  text: string;
  html: string;
  preview: string | null;
  list_extracted_text: string | null;
}

export interface ConversionLog {
  info(message: string): void;
}

/**
 * Converts the mail a database holds in the layout before migration 017 (text and html in
 * `messages`, the source uncompressed in message_raw) to the compact one: per message a
 * compressed source with its text and html (message-sources.ts), list_text, and on SQLite its
 * row in the new full-text index. Batches of up to BATCH_MESSAGES, each one transaction that
 * also empties the old copies, oldest first, with a line in the log after each: a start that is
 * stopped (kill -9 included) goes on where the last committed batch ended, and loses nothing.
 * Nodes starting together on PostgreSQL take turns batch by batch. Then the old tables and
 * columns go (compact-finish.ts). Answers how many messages it converted (0 once done).
 */
export async function convertToCompactStorage(db: Db, log: ConversionLog): Promise<number> {
  if (!(await db.rawFirst('SELECT 1 FROM settings WHERE key = ?', COMPACT_MARK))) return 0;
  const left = await db.rawFirst<{ n: number }>('SELECT count(*) AS n FROM messages WHERE source_id IS NULL');
  const total = Number(left?.n ?? 0);
  if (total > 0) {
    log.info(
      `converting ${total} stored message(s) to the compact layout (migration 017); a stopped start goes on where it ended`,
    );
  }
  if (db.engine === 'sqlite') {
    await db.rawRun(`CREATE VIRTUAL TABLE IF NOT EXISTS ${SQLITE_FTS_NEXT} USING ${SQLITE_FTS_DEFINITION}`);
  }
  let done = 0;
  for (;;) {
    const converted = await db.transaction(() => convertBatch(db));
    if (converted === 0) break;
    done += converted;
    log.info(`converted ${done} of ${total} message(s) to the compact layout`);
    // A turn of the event loop: the line reaches the log now, not when the conversion ends (on
    // SQLite every await above resolved at once), and a signal is heard between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const finished =
    db.engine === 'sqlite'
      ? finishCompactSqlite(db as SqliteDb)
      : await finishCompactPostgres((db as PostgresDb).pool, MIGRATION_LOCK_KEY);
  if (finished && done > 0)
    log.info('the compact layout is complete: the old copies of text, html and source are gone');
  return done;
}

async function convertBatch(db: Db): Promise<number> {
  if (db.engine === 'postgres')
    await db.rawRun('SELECT pg_advisory_xact_lock(?)', COMPACT_CONVERSION_LOCK_KEY.toString());
  const candidates = await db.rawAll<{ id: number; size: number }>(
    'SELECT id, size FROM messages WHERE source_id IS NULL ORDER BY id LIMIT ?',
    BATCH_MESSAGES,
  );
  let bytes = 0;
  const ids: number[] = [];
  for (const { id, size } of candidates) {
    if (ids.length > 0 && bytes + Number(size) > BATCH_BYTES) break;
    bytes += Number(size);
    ids.push(Number(id));
  }
  if (ids.length === 0) return 0;
  const marks = ids.map(() => '?').join(', ');
  const rows = await db.rawAll<OldMessage>(
    `SELECT id, subject, from_name, from_address, to_addrs, cc_addrs, bcc_addrs, text, html, preview, list_extracted_text
       FROM messages WHERE id IN (${marks}) ORDER BY id`,
    ...ids,
  );
  const sources = await oldSources(db, ids);
  for (const row of rows) {
    const id = Number(row.id);
    const sourceId = await writeSource(db, await packMessage(sources.get(id) ?? Buffer.alloc(0), row));
    const columns = listColumnsOf(row.text);
    // A row filed before migration 013 gets the list columns its list worked out from the whole
    // text; a later one keeps its own, its preview NULL where the list text gives it.
    const listed =
      row.preview === null
        ? columns
        : {
            preview: storedPreview(row.preview, columns.list_text),
            list_extracted_text: row.list_extracted_text,
          };
    await db.rawRun(
      "UPDATE messages SET source_id = ?, list_text = ?, preview = ?, list_extracted_text = ?, text = '', html = '' WHERE id = ?",
      sourceId,
      columns.list_text,
      listed.preview,
      listed.list_extracted_text,
      id,
    );
    if (db.engine === 'sqlite') {
      const { subject, addresses, body } = searchFieldsOfRow(row, row.text);
      await db.rawRun(
        `INSERT INTO ${SQLITE_FTS_NEXT} (rowid, subject, addresses, body) VALUES (?, ?, ?, ?)`,
        id,
        subject,
        addresses,
        body,
      );
    }
  }
  await db.rawRun(`DELETE FROM message_raw_parts WHERE message_id IN (${marks})`, ...ids);
  await db.rawRun(`DELETE FROM message_raw WHERE message_id IN (${marks})`, ...ids);
  return rows.length;
}

/** The old layout's sources of these messages, whole (message_raw and message_raw_parts). */
async function oldSources(db: Db, ids: number[]): Promise<Map<number, Buffer>> {
  const marks = ids.map(() => '?').join(', ');
  const firsts = await db.rawAll<{ message_id: number; raw: Buffer }>(
    `SELECT message_id, raw FROM message_raw WHERE message_id IN (${marks})`,
    ...ids,
  );
  const parts = await db.rawAll<{ message_id: number; bytes: Buffer }>(
    `SELECT message_id, bytes FROM message_raw_parts WHERE message_id IN (${marks}) ORDER BY message_id, part`,
    ...ids,
  );
  const out = new Map<number, Buffer[]>();
  for (const { message_id, raw } of firsts) out.set(Number(message_id), [raw]);
  for (const { message_id, bytes } of parts) out.get(Number(message_id))?.push(bytes);
  return new Map([...out].map(([id, pieces]) => [id, Buffer.concat(pieces)]));
}
