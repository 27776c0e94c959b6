import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/server.js';
import type { Upgraded } from '../helpers/migrated-from.js';
import { migratedFrom } from '../helpers/migrated-from.js';
const AT = "'2026-01-01T00:00:00.000Z'";
const bytes = onPostgres ? "decode('00', 'hex')" : "X'00'";

/**
 * A connected inbox two nodes synced at once before migration 027: remote UID 7 of INBOX stored
 * three times (ids 1, 2, 4; the copies read, flagged; an event reading the body of copy 2; each
 * with its own source), UID 8 once, and UID 7 of Sent (another folder's, not a twin).
 */
const BEFORE = [
  `INSERT INTO users (id, name, created_at) VALUES (1, 'owner', ${AT})`,
  `INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (1, 'agent@mailroom.test', 1, 'imap', ${AT})`,
  `INSERT INTO folders (id, inbox_id, name, special_use, created_at) VALUES (1, 1, 'INBOX', '\\Inbox', ${AT})`,
  `INSERT INTO folders (id, inbox_id, name, special_use, created_at) VALUES (2, 1, 'Sent', '\\Sent', ${AT})`,
  ...[1, 2, 3, 4, 5].map(
    (id) => `INSERT INTO message_sources (id, body, raw) VALUES (${id}, ${bytes}, ${bytes})`,
  ),
  ...[
    [1, 1, 7, '[]', 0],
    [2, 1, 7, '["\\\\Seen"]', 1],
    [3, 1, 8, '[]', 0],
    [4, 1, 7, '["\\\\Flagged","\\\\Seen"]', 1],
    [5, 2, 7, '[]', 0],
  ].map(
    ([id, folder, remoteUid, flags, seen]) =>
      `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, from_address, date, received_at, size, list_text, remote_uid, flags, seen, source_id)
       VALUES (${id}, 1, ${id}, ${folder}, 't${id}', '<m${remoteUid}@x>', 'a@example.com', ${AT}, ${AT}, 10, '', ${remoteUid}, '${flags}', ${seen}, ${id})`,
  ),
  `INSERT INTO events (id, type, user_id, inbox_id, payload, created_at, body_of) VALUES ('e1', 'email.received', 1, 1, '{}', ${AT}, 2)`,
];

// Migration 027 on a database holding the same remote message twice: the oldest row stays with
// the flags of every copy, the later copies go, and (folder, remote UID) is unique from then on.
describe('migration 027 on mail stored twice by two nodes', () => {
  let query: Upgraded['query'];
  let run: Upgraded['run'];
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ query, run, close } = await migratedFrom('027', BEFORE));
  });
  afterAll(async () => close?.());

  it('keeps the oldest copy of each remote message, with the flags of every copy', async () => {
    const rows = await query('SELECT id, folder_id, remote_uid, flags, seen FROM messages ORDER BY id');
    expect(
      rows.map((r) => [
        Number(r.id),
        Number(r.folder_id),
        Number(r.remote_uid),
        (JSON.parse(String(r.flags)) as string[]).sort(),
        Number(r.seen),
      ]),
    ).toEqual([
      [1, 1, 7, ['\\Flagged', '\\Seen'], 1],
      [3, 1, 8, [], 0],
      [5, 2, 7, [], 0],
    ]);
  });

  it('points the events of a copy that went at the copy kept, and drops the sources nothing reads', async () => {
    expect((await query("SELECT body_of FROM events WHERE id = 'e1'")).map((r) => Number(r.body_of))).toEqual(
      [1],
    );
    expect((await query('SELECT id FROM message_sources ORDER BY id')).map((r) => Number(r.id))).toEqual([
      1, 3, 5,
    ]);
  });

  it('refuses a second row of one remote UID in one folder, and not in another folder or unlinked', async () => {
    const insert = (id: number, folder: number, remoteUid: string) =>
      run(
        `INSERT INTO messages (id, inbox_id, uid, folder_id, thread_id, message_id, from_address, date, received_at, size, list_text, remote_uid)
         VALUES (${id}, 1, ${id}, ${folder}, 't', '<n@x>', 'a@example.com', ${AT}, ${AT}, 10, '', ${remoteUid})`,
      );
    await expect(insert(10, 1, '7')).rejects.toThrow(/unique/i);
    await insert(11, 2, '8');
    await insert(12, 1, 'NULL');
    await insert(13, 1, 'NULL');
    expect(Number((await query('SELECT count(*) AS n FROM messages'))[0]!.n)).toBe(6);
  });
});
