import { once } from 'node:events';
import zlib from 'node:zlib';
import type { Db } from '../db/connection.js';
import { decodeBase64Runs, encodeBase64Runs } from './base64-runs.js';

/**
 * A message's source and its text and html, kept compressed in message_sources (migration 017),
 * one row for every copy a delivery filed. Brotli at quality 5 with a 4 MB window: on the
 * storage bench's corpus it keeps 0.57 bytes per byte of source (the base64 of photos and
 * archives cannot shrink much below 0.75) at tens of MB/s, and reads back at hundreds.
 *
 * A source of up to JOINT_SOURCE_BYTES is one compressed stream with its text and html ahead of
 * it (`body` is then empty). A bigger one is compressed in pieces of RAW_PIECE_BYTES of the
 * original, each on its own: message_sources.raw holds the first and `parts` says how many follow
 * in message_source_parts, so neither side ever binds a whole 25 MB message at once (the reason
 * for pieces since migration 014); its text and html are `body`, compressed on their own.
 *
 * Since migration 030 a source is stored with its base64 decoded (base64-runs.ts), each piece on
 * its own, and `base64_decoded` is 1; sources stored before keep their form and read as they are.
 */
export const RAW_PIECE_BYTES = 1024 * 1024;

/** The further pieces written by one statement at most: a few MB in a bind, few round trips. */
const PIECES_PER_STATEMENT = 4;

const brotliOptions = (size: number): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_LGWIN]: 22,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
});

const compress = (bytes: Buffer): Buffer => zlib.brotliCompressSync(bytes, brotliOptions(bytes.length));

/**
 * `parts` one after the other, compressed on libuv's thread pool (compressing 25 MB takes the
 * caller's thread a second and more on a loaded machine), without first copying them into one buffer.
 */
async function compressAway(parts: Buffer[]): Promise<Buffer> {
  const encoder = zlib.createBrotliCompress(brotliOptions(parts.reduce((n, part) => n + part.length, 0)));
  const out: Buffer[] = [];
  encoder.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(encoder, 'end');
  for (const part of parts) encoder.write(part);
  encoder.end();
  await ended;
  return Buffer.concat(out);
}

const decompress = (bytes: Buffer): Buffer => zlib.brotliDecompressSync(bytes);

export interface MessageBody {
  text: string;
  html: string;
}

/**
 * Sources up to this size are compressed in one stream with their text and html, which mostly
 * repeat what the source holds (0.033 less per byte of mail on the storage bench); a full read
 * then decompresses the source too, which this bound keeps to a fraction of a millisecond.
 */
const JOINT_SOURCE_BYTES = 256 * 1024;

/**
 * Text and html as stored: their lengths in bytes (4 each, little-endian), the text, the html;
 * in parts, which the compressor takes one after the other.
 */
function plainBody({ text, html }: MessageBody): Buffer[] {
  const textBytes = Buffer.from(text, 'utf8');
  const htmlBytes = Buffer.from(html, 'utf8');
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32LE(textBytes.length, 0);
  lengths.writeUInt32LE(htmlBytes.length, 4);
  return [lengths, textBytes, htmlBytes];
}

/** The text and html at the start of `bytes`, and where they end. */
function readPlainBody(bytes: Buffer): { body: MessageBody; end: number } {
  const textEnd = 8 + bytes.readUInt32LE(0);
  const end = textEnd + bytes.readUInt32LE(4);
  return {
    body: { text: bytes.toString('utf8', 8, textEnd), html: bytes.toString('utf8', textEnd, end) },
    end,
  };
}

/**
 * The text and html of a source row: from `body`, or, where it is empty, from the start of its
 * first piece (`raw`), which holds them ahead of a small source.
 */
export function unpackBody(body: Buffer, raw: Buffer | null): MessageBody {
  return readPlainBody(decompress(body.length > 0 ? body : raw!)).body;
}

/**
 * A source compressed in pieces, each RAW_PIECE_BYTES of it, one after the other: an encoder
 * holds several MB while it works, and 25 of them side by side took RSS up by 200 MB.
 */
async function packSource(raw: Buffer): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  for (let start = 0; start === 0 || start < raw.length; start += RAW_PIECE_BYTES) {
    pieces.push(await compressAway(decodeBase64Runs(raw.subarray(start, start + RAW_PIECE_BYTES))));
  }
  return pieces;
}

/** What a source row is made of, already compressed: its body (empty when the first piece holds it) and its pieces. */
export interface PackedSource {
  body: Buffer;
  pieces: Buffer[];
}

/** A piece of a source as stored, decompressed, made the source's bytes again. */
const sourceBytes = (stored: Buffer, base64Decoded: number): Buffer =>
  Number(base64Decoded) === 1 ? encodeBase64Runs(stored) : stored;

/**
 * A message's source and body, compressed. A small one is compressed at once (a fraction of a
 * millisecond, less than a hop to another thread); a bigger one away from the calling thread, so
 * that the server answers requests while a big message is filed. Callers that can pack before
 * their transaction do (an IMAP sync's batch), so that the transaction does not wait for it.
 */
export async function packMessage(raw: Buffer, body: MessageBody): Promise<PackedSource> {
  if (raw.length <= JOINT_SOURCE_BYTES) {
    return {
      body: Buffer.alloc(0),
      pieces: [compress(Buffer.concat([...plainBody(body), ...decodeBase64Runs(raw)]))],
    };
  }
  return { body: await compressAway(plainBody(body)), pieces: await packSource(raw) };
}

/**
 * Stores a packed source; answers its id. Inside a transaction on PostgreSQL the row goes with
 * the others of the transaction in one statement (Db.insertSoon), ahead of the messages that
 * point at it; further pieces (sources over 1 MB) are written at once, a few a statement.
 */
export async function writeSource(db: Db, source: PackedSource): Promise<number> {
  const [first, ...rest] = source.pieces;
  const id = await db.insertSoon('message_sources', {
    body: source.body,
    raw: first!,
    parts: rest.length,
    base64_decoded: 1,
  });
  for (let part = 1; part <= rest.length; part += PIECES_PER_STATEMENT) {
    const batch = rest.slice(part - 1, part - 1 + PIECES_PER_STATEMENT);
    await db.rawRun(
      `INSERT INTO message_source_parts (source_id, part, bytes) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}`,
      ...batch.flatMap((bytes, i) => [id, part + i, bytes]),
    );
  }
  return id;
}

/** The whole source of a message: its pieces read in order and put back together. */
export async function readSource(db: Db, messageId: number): Promise<Buffer | undefined> {
  const first = await db.rawFirst<{
    id: number;
    raw: Buffer;
    parts: number;
    body_length: number;
    base64_decoded: number;
  }>(
    `SELECT s.id, s.raw, s.parts, length(s.body) AS body_length, s.base64_decoded
       FROM messages m JOIN message_sources s ON s.id = m.source_id WHERE m.id = ?`,
    messageId,
  );
  if (!first) return undefined;
  const piece = (stored: Buffer) => sourceBytes(decompress(stored), first.base64_decoded);
  if (Number(first.body_length) === 0) {
    const bytes = decompress(first.raw);
    return sourceBytes(bytes.subarray(readPlainBody(bytes).end), first.base64_decoded);
  }
  if (Number(first.parts) === 0) return piece(first.raw);
  const rest = await db.rawAll<{ bytes: Buffer }>(
    'SELECT bytes FROM message_source_parts WHERE source_id = ? ORDER BY part',
    first.id,
  );
  if (rest.length !== Number(first.parts)) {
    throw new Error(`message ${messageId}: its source has ${rest.length} of ${first.parts} further pieces`);
  }
  return Buffer.concat([first.raw, ...rest.map((r) => r.bytes)].map(piece));
}

/** The columns a source's text and html are read from (see unpackBody): the source's only when they are in it. */
export const BODY_COLUMNS = 's.body, CASE WHEN length(s.body) = 0 THEN s.raw END AS joint';

/** The text and html of these messages, by message id (none for an id that is not stored). */
export async function readBodies(db: Db, messageIds: number[]): Promise<Map<number, MessageBody>> {
  const out = new Map<number, MessageBody>();
  if (messageIds.length === 0) return out;
  const rows = await db.rawAll<{ id: number; body: Buffer; joint: Buffer | null }>(
    `SELECT m.id, ${BODY_COLUMNS} FROM messages m JOIN message_sources s ON s.id = m.source_id
      WHERE m.id IN (${messageIds.map(() => '?').join(', ')})`,
    ...messageIds,
  );
  for (const row of rows) out.set(Number(row.id), unpackBody(row.body, row.joint));
  return out;
}

/**
 * Deletes a source no message points at any more. Call in the transaction that deleted the
 * message, after it. On PostgreSQL the source row is locked first: two copies deleted at once
 * by two transactions then take turns, and the second sees the first's delete and removes the
 * source (without the lock each would still see the other's copy, and the source would stay).
 */
export async function removeIfUnused(db: Db, sourceId: number): Promise<void> {
  if (db.dialect.rowLocks)
    await db.rawFirst('SELECT id FROM message_sources WHERE id = ? FOR UPDATE', sourceId);
  await db.rawRun(
    'DELETE FROM message_sources WHERE id = ? AND NOT EXISTS (SELECT 1 FROM messages WHERE source_id = ?)',
    sourceId,
    sourceId,
  );
}

/** Deletes every source no message points at (after messages went by a cascade: an inbox, a user). */
export async function removeUnusedSources(db: Db): Promise<number> {
  return (
    await db.rawRun(
      'DELETE FROM message_sources WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = message_sources.id)',
    )
  ).changes;
}
