import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import type { Store } from '../../src/store/index.js';
import { RAW_PIECE_BYTES } from '../../src/store/message-raw.js';
import { largeMessage } from '../helpers/large-message.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** A message of about `bytes` bytes, most of it a base64 attachment. */
const messageOf = (bytes: number, i: number): Buffer => Buffer.from(largeMessage(bytes / 2 ** 20)(i));

describe('a source stored in pieces of 1 MB (migration 014)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let store: Store;

  beforeAll(async () => {
    server = await startServer();
    store = server.mailroom.deps.store;
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function file(raw: Buffer): Promise<number> {
    const inbox = (await store.inboxes.findByAddress(server.inbox))!;
    const folder = (await store.folders.find(inbox.id, 'INBOX'))!;
    const parsed = await parseEmail(raw);
    const row = await store.db.transaction(
      async () => await fileMessage(store, { inbox, folder, parsed, raw, flags: [], receivedAt: new Date() }),
    );
    return row.id;
  }

  const partsOf = async (id: number) =>
    await store.db.rawAll<{ part: number; length: number }>(
      'SELECT part, length(bytes) AS length FROM message_raw_parts WHERE message_id = ? ORDER BY part',
      id,
    );

  it('reads a 3.5 MB source back byte for byte, stored as a first piece and three more', async () => {
    const raw = messageOf(3.5 * 1024 * 1024, 0);
    const id = await file(raw);
    expect((await store.messages.raw(id))!.equals(raw)).toBe(true);
    const first = await store.db.rawFirst<{ length: number; parts: number }>(
      'SELECT length(raw) AS length, parts FROM message_raw WHERE message_id = ?',
      id,
    );
    expect({ length: Number(first!.length), parts: first!.parts }).toEqual({
      length: RAW_PIECE_BYTES,
      parts: 3,
    });
    const parts = await partsOf(id);
    expect(parts.map((p) => p.part)).toEqual([1, 2, 3]);
    expect(parts.map((p) => Number(p.length))).toEqual([
      RAW_PIECE_BYTES,
      RAW_PIECE_BYTES,
      raw.length - 3 * RAW_PIECE_BYTES,
    ]);
    // And through the API, as a client downloads it.
    const inbox = (await store.inboxes.findByAddress(server.inbox))!;
    const { uid } = (await store.messages.get(id))!;
    const res = await fetch(
      `${server.baseUrl}/api/v1/emails/${uid}/raw?account=${encodeURIComponent(inbox.address)}`,
      { headers: { authorization: `Bearer ${server.key}` } },
    );
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(raw)).toBe(true);
  });

  it('keeps a source of 1 KB, and one of exactly 1 MB, in one row with no parts', async () => {
    for (const raw of [messageOf(1024, 0), Buffer.alloc(RAW_PIECE_BYTES, 'x')]) {
      if (raw.length === RAW_PIECE_BYTES) raw.write('Subject: exact\r\n\r\n');
      const id = await file(raw);
      expect((await store.messages.raw(id))!.equals(raw)).toBe(true);
      expect(await partsOf(id)).toEqual([]);
      const first = await store.db.rawFirst<{ parts: number }>(
        'SELECT parts FROM message_raw WHERE message_id = ?',
        id,
      );
      expect(first!.parts).toBe(0);
    }
  });

  it('files many small sources and a big one in one transaction, each read back whole', async () => {
    const inbox = (await store.inboxes.findByAddress(server.inbox))!;
    const folder = (await store.folders.find(inbox.id, 'INBOX'))!;
    const raws = [
      ...Array.from({ length: 20 }, (_, i) => messageOf(2000, i)),
      messageOf(2 * RAW_PIECE_BYTES + 10, 20),
      messageOf(3000, 21),
    ];
    const parsed = await Promise.all(raws.map((raw) => parseEmail(raw)));
    const ids = await store.db.transaction(async () => {
      const out: number[] = [];
      for (const [i, raw] of raws.entries()) {
        const input = { inbox, folder, parsed: parsed[i]!, raw, flags: [], receivedAt: new Date() };
        out.push((await fileMessage(store, input)).id);
      }
      return out;
    });
    for (const [i, id] of ids.entries()) expect((await store.messages.raw(id))!.equals(raws[i]!)).toBe(true);
    expect(await partsOf(ids[20]!)).toHaveLength(2);
  });

  it('deletes the pieces with their message', async () => {
    const id = await file(messageOf(2.5 * 1024 * 1024, 0));
    expect(await partsOf(id)).toHaveLength(2);
    await store.db.transaction(async () => await store.messages.remove(id));
    expect(await partsOf(id)).toEqual([]);
    expect(await store.messages.raw(id)).toBeUndefined();
  });
});
