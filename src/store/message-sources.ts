import zlib from 'node:zlib';
import type { Db } from '../db/connection.js';

/**
 * A message's source and its text and html, kept compressed in message_sources (migration 017),
 * one row for every copy a delivery filed. Brotli at quality 5 with a 4 MB window: on the
 * storage bench's corpus it keeps 0.57 bytes per byte of source (the base64 of photos and
 * archives cannot shrink much below 0.75) at tens of MB/s, and reads back at hundreds.
 *
 * The source is compressed in pieces of RAW_PIECE_BYTES of the original, each on its own:
 * message_sources.raw holds the first and `parts` says how many follow in message_source_parts,
 * so neither side ever binds a whole 25 MB message at once (the reason for pieces since
 * migration 014).
 */
export const RAW_PIECE_BYTES = 1024 * 1024;

/** The further pieces written by one statement at most: a few MB in a bind, few round trips. */
const PIECES_PER_STATEMENT = 4;

const compress = (bytes: Buffer): Buffer =>
  zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
      [zlib.constants.BROTLI_PARAM_LGWIN]: 22,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });

const decompress = (bytes: Buffer): Buffer => zlib.brotliDecompressSync(bytes);

export interface MessageBody {
  text: string;
  html: string;
}

/** Text and html in one compressed value: the text's length in bytes (4, little-endian), the text, the html. */
export function packBody({ text, html }: MessageBody): Buffer {
  const textBytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(textBytes.length);
  return compress(Buffer.concat([length, textBytes, Buffer.from(html, 'utf8')]));
}

export function unpackBody(packed: Buffer): MessageBody {
  const bytes = decompress(packed);
  const end = 4 + bytes.readUInt32LE(0);
  return { text: bytes.toString('utf8', 4, end), html: bytes.toString('utf8', end) };
}

/** A source compressed in pieces, each RAW_PIECE_BYTES of it. */
export function packSource(raw: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  for (let start = 0; start === 0 || start < raw.length; start += RAW_PIECE_BYTES) {
    pieces.push(compress(raw.subarray(start, start + RAW_PIECE_BYTES)));
  }
  return pieces;
}

/** What a source row is made of: its body and its source, already packed. */
export interface PackedSource {
  body: Buffer;
  pieces: Buffer[];
}

export function packMessage(raw: Buffer, body: MessageBody): PackedSource {
  return { body: packBody(body), pieces: packSource(raw) };
}

/**
 * Stores a packed source; answers its id. Inside a transaction on PostgreSQL the row goes with
 * the others of the transaction in one statement (Db.insertSoon), ahead of the messages that
 * point at it; further pieces (sources over 1 MB) are written at once, a few a statement.
 */
export async function writeSource(db: Db, source: PackedSource): Promise<number> {
  const [first, ...rest] = source.pieces;
  const id = await db.insertSoon('message_sources', { body: source.body, raw: first!, parts: rest.length });
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
  const first = await db.rawFirst<{ id: number; raw: Buffer; parts: number }>(
    'SELECT s.id, s.raw, s.parts FROM messages m JOIN message_sources s ON s.id = m.source_id WHERE m.id = ?',
    messageId,
  );
  if (!first) return undefined;
  if (first.parts === 0) return decompress(first.raw);
  const rest = await db.rawAll<{ bytes: Buffer }>(
    'SELECT bytes FROM message_source_parts WHERE source_id = ? ORDER BY part',
    first.id,
  );
  if (rest.length !== first.parts) {
    throw new Error(`message ${messageId}: its source has ${rest.length} of ${first.parts} further pieces`);
  }
  return Buffer.concat([first.raw, ...rest.map((r) => r.bytes)].map(decompress));
}

/** The text and html of these messages, by message id (none for an id that is not stored). */
export async function readBodies(db: Db, messageIds: number[]): Promise<Map<number, MessageBody>> {
  const out = new Map<number, MessageBody>();
  if (messageIds.length === 0) return out;
  const rows = await db.rawAll<{ id: number; body: Buffer }>(
    `SELECT m.id, s.body FROM messages m JOIN message_sources s ON s.id = m.source_id
      WHERE m.id IN (${messageIds.map(() => '?').join(', ')})`,
    ...messageIds,
  );
  for (const row of rows) out.set(row.id, unpackBody(row.body));
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
