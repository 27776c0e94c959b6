import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Upgraded } from '../helpers/migrated-from.js';
import { migratedFrom } from '../helpers/migrated-from.js';

/** The mail an inbox had before migration 024, in the columns every release since 017 has. */
const BEFORE = [
  "INSERT INTO users (id, name, created_at) VALUES (1, 'owner', '2026-01-01T00:00:00.000Z')",
  "INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'agent@mailroom.test', 1, 'local', '2026-01-01T00:00:00.000Z')",
  ...['INBOX:\\Inbox', 'Sent:\\Sent', 'Drafts:\\Drafts', 'Spam:\\Junk', 'outbox:'].map((f) => {
    const [name, use] = f.split(':');
    return `INSERT INTO folders (inbox_id, name, special_use, created_at) VALUES (1, '${name}', ${use ? `'${use}'` : 'NULL'}, '2026-01-01T00:00:00.000Z')`;
  }),
  ...[
    [1, 'INBOX', 'Friend@Example.com', '[]', '[]'],
    [2, 'Spam', 'spammer@example.com', '[]', '[]'],
    [3, 'Sent', 'agent@mailroom.test', '["told@example.com"]', '["copied@example.com"]'],
    [4, 'Drafts', 'agent@mailroom.test', '["drafted@example.com"]', '[]'],
  ].map(
    ([uid, folder, from, to, cc]) =>
      `INSERT INTO messages (inbox_id, uid, folder_id, thread_id, message_id, from_address, to_addrs, cc_addrs, date, received_at, size, list_text)
       VALUES (1, ${uid}, (SELECT id FROM folders WHERE name = '${folder}'), 't${uid}', '<m${uid}@x>', '${from}', '${to}', '${cc}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 10, '')`,
  ),
];

// Migration 024 on a database with mail: the correspondents approve_new asks are filled from it,
// and every inbox gets its Outbox (a folder already named so moves aside).
describe('migration 024 on mail stored before it', () => {
  let query: Upgraded['query'];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ query, close } = await migratedFrom('024', BEFORE));
  });
  afterAll(async () => close?.());

  it('knows who the inbox received mail from outside Spam and sent mail to, and no one else', async () => {
    const rows = await query('SELECT address FROM correspondents WHERE inbox_id = 1 ORDER BY address');
    expect(rows.map((r) => r.address)).toEqual([
      'copied@example.com',
      'friend@example.com',
      'told@example.com',
    ]);
  });

  it('gives the inbox its Outbox, moving a folder of that name aside', async () => {
    const rows = await query('SELECT name, special_use FROM folders WHERE inbox_id = 1 ORDER BY id');
    expect(rows.map((r) => [r.name, r.special_use])).toEqual([
      ['INBOX', '\\Inbox'],
      ['Sent', '\\Sent'],
      ['Drafts', '\\Drafts'],
      ['Spam', '\\Junk'],
      ['outbox (before Outbox)', null],
      ['Outbox', '\\Outbox'],
    ]);
  });
});
