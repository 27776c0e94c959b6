import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';
import { fileMessage } from '../../src/mailbox/ingest/file-message.js';
import type { Store } from '../../src/store/index.js';
import { RAW_PIECE_BYTES } from '../../src/store/message-sources.js';
import { largeMessage } from '../helpers/large-message.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** A message of about `bytes` bytes, most of it a base64 attachment. */
const messageOf = (bytes: number, i: number): Buffer => Buffer.from(largeMessage(bytes / 2 ** 20)(i));

describe(
  'a source stored compressed, in pieces of 1 MB of it (migrations 014 and 017)',
  { timeout: 120_000 },
  () => {
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
        async () =>
          await fileMessage(store, { inbox, folder, parsed, raw, flags: [], receivedAt: new Date() }),
      );
      return row.id;
    }

    const sourceOf = async (id: number) => (await store.messages.get(id))!.source_id;
    const partsOfSource = async (sourceId: number) =>
      await store.db.rawAll<{ part: number; length: number }>(
        'SELECT part, length(bytes) AS length FROM message_source_parts WHERE source_id = ? ORDER BY part',
        sourceId,
      );
    const partsOf = async (id: number) => await partsOfSource(await sourceOf(id));
    const firstOf = async (id: number) =>
      (await store.db.rawFirst<{ length: number; parts: number }>(
        'SELECT length(raw) AS length, parts FROM message_sources WHERE id = ?',
        await sourceOf(id),
      ))!;

    it('reads a 3.5 MB source back byte for byte, stored compressed as a first piece and three more', async () => {
      const raw = messageOf(3.5 * 1024 * 1024, 0);
      const id = await file(raw);
      expect((await store.messages.raw(id))!.equals(raw)).toBe(true);
      const first = await firstOf(id);
      expect(Number(first.parts)).toBe(3);
      const parts = await partsOf(id);
      expect(parts.map((p) => Number(p.part))).toEqual([1, 2, 3]);
      // Each piece is 1 MB of the source (the last what is left), compressed: the attachment's
      // base64 keeps about three quarters of its bytes.
      const stored = [Number(first.length), ...parts.map((p) => Number(p.length))];
      for (const [i, length] of stored.entries()) {
        const piece = Math.min(RAW_PIECE_BYTES, raw.length - i * RAW_PIECE_BYTES);
        expect(length).toBeLessThan(piece * 0.85);
      }
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
        expect(Number((await firstOf(id)).parts)).toBe(0);
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
      for (const [i, id] of ids.entries())
        expect((await store.messages.raw(id))!.equals(raws[i]!)).toBe(true);
      expect(await partsOf(ids[20]!)).toHaveLength(2);
    });

    it('keeps a base64 attachment as its bytes (migration 030): a CSV in a tenth of its source', async () => {
      const csv = Array.from(
        { length: 4000 },
        (_, i) => `${i},customer-${(i * 7919) % 1000},${(i * 31337) % 100000}`,
      );
      const base64 = Buffer.from(csv.join('\r\n')).toString('base64').replace(/.{76}/g, '$&\r\n');
      const raw = Buffer.from(
        `From: a@example.com\r\nSubject: export\r\nContent-Type: text/csv\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64}\r\n`,
      );
      const id = await file(raw);
      expect((await store.messages.raw(id))!.equals(raw)).toBe(true);
      // Brotli keeps the base64 itself at 0.22 of the source: it hides the rows' repeats.
      expect(Number((await firstOf(id)).length)).toBeLessThan(raw.length * 0.12);
    });

    it('reads a source stored before migration 030, its base64 as it came', async () => {
      const raw = messageOf(4096, 1);
      const id = await file(raw);
      const text = Buffer.from('see attached');
      const lengths = Buffer.alloc(8);
      lengths.writeUInt32LE(text.length, 0);
      await store.db.rawRun(
        'UPDATE message_sources SET raw = ?, base64_decoded = 0 WHERE id = ?',
        zlib.brotliCompressSync(Buffer.concat([lengths, text, raw])),
        await sourceOf(id),
      );
      expect((await store.messages.raw(id))!.equals(raw)).toBe(true);
      expect((await store.messages.bodies([id])).get(id)?.text).toBe('see attached');
    });

    it('deletes the source and its pieces with their message', async () => {
      const id = await file(messageOf(2.5 * 1024 * 1024, 0));
      const sourceId = await sourceOf(id);
      expect(await partsOfSource(sourceId)).toHaveLength(2);
      await store.db.transaction(async () => await store.messages.remove(id));
      expect(await partsOfSource(sourceId)).toEqual([]);
      expect(
        await store.db.rawFirst('SELECT id FROM message_sources WHERE id = ?', sourceId),
      ).toBeUndefined();
      expect(await store.messages.raw(id)).toBeUndefined();
    });
  },
);
