import type { SearchFields } from '../db/dialect.js';
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

export type IndexedColumns =
  'subject' | 'from_name' | 'from_address' | 'to_addrs' | 'cc_addrs' | 'bcc_addrs' | 'text';

/** The same index text from a stored message row (db copy and the index rebuild use it). */
export function searchFieldsOfRow(row: Pick<MessageRow, IndexedColumns>): SearchFields {
  const list = (json: string) => JSON.parse(json) as string[];
  const recipients = [...list(row.to_addrs), ...list(row.cc_addrs), ...list(row.bcc_addrs)];
  return searchFields(row.subject, row.from_name, row.from_address, recipients, row.text);
}
