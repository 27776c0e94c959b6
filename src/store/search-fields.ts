import type { Db } from '../db/connection.js';
import type { SearchFields } from '../db/dialect.js';
import { BODY_COLUMNS, unpackBody } from './message-sources.js';
import type { MessageRow } from './messages.js';

/** Full-text indexing stops here; the whole text is still stored and returned. */
const FTS_BODY_LIMIT = 256 * 1024;

/** What the full-text index holds for a message: its subject, the sender and recipients, the text. */
export function searchFields(
  subject: string,
  fromName: string,
  fromAddress: string,
  recipients: string[],
  text: string,
): SearchFields {
  return {
    subject,
    addresses: [fromName, fromAddress, ...recipients].join(' '),
    body: text.length > FTS_BODY_LIMIT ? text.slice(0, FTS_BODY_LIMIT) : text,
  };
}

export type IndexedColumns = 'subject' | 'from_name' | 'from_address' | 'to_addrs' | 'cc_addrs' | 'bcc_addrs';

/** The same index text from a stored message row and its text (the conversion of migration 017 uses it). */
export function searchFieldsOfRow(row: Pick<MessageRow, IndexedColumns>, text: string): SearchFields {
  const list = (json: string) => JSON.parse(json) as string[];
  const recipients = [...list(row.to_addrs), ...list(row.cc_addrs), ...list(row.bcc_addrs)];
  return searchFields(row.subject, row.from_name, row.from_address, recipients, text);
}

/**
 * The index text of stored messages, their text read from their sources in `db` (db copy and
 * the index rebuild use it), in the order of `rows`.
 */
export async function searchFieldsOfStored(
  db: Db,
  rows: Pick<MessageRow, IndexedColumns | 'source_id'>[],
): Promise<SearchFields[]> {
  const ids = [...new Set(rows.map((r) => Number(r.source_id)))];
  const bodies = new Map<number, string>();
  if (ids.length > 0) {
    const found = await db.rawAll<{ id: number; body: Buffer; joint: Buffer | null }>(
      `SELECT s.id, ${BODY_COLUMNS} FROM message_sources s WHERE s.id IN (${ids.map(() => '?').join(', ')})`,
      ...ids,
    );
    for (const { id, body, joint } of found) bodies.set(Number(id), unpackBody(body, joint).text);
  }
  return rows.map((row) => searchFieldsOfRow(row, bodies.get(Number(row.source_id)) ?? ''));
}
