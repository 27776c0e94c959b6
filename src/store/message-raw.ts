import type { Db } from '../db/connection.js';

/**
 * A message's source is stored in pieces of this size (migration 014): message_raw.raw holds the
 * first and says how many follow (`parts`), message_raw_parts the rest. Storing a 25 MB source as
 * one row held two more transient copies of it on SQLite (better-sqlite3's copy of the bound blob,
 * then SQLite's record) and the whole parameter in pg's write buffer on PostgreSQL.
 */
export const RAW_PIECE_BYTES = 1024 * 1024;

/** Sources written by one statement at most (bigger messages go alone). */
const RAW_STATEMENT_BYTES = 16 * 1024 * 1024;

/** The further pieces written by one statement at most: a few MB in a bind, few round trips. */
const PIECES_PER_STATEMENT = 4;

export interface Source {
  id: number;
  raw: Buffer;
}

/**
 * Writes sources: the first pieces of many small messages in statements of up to
 * RAW_STATEMENT_BYTES (one statement for a group commit's mail on PostgreSQL), then the further
 * pieces of the big ones, PIECES_PER_STATEMENT a statement. Every piece is a view of `raw`.
 */
export async function writeSources(db: Db, sources: Source[]): Promise<void> {
  for (let start = 0; start < sources.length;) {
    let end = start + 1;
    let bytes = firstPiece(sources[start]!.raw).length;
    while (end < sources.length && bytes + firstPiece(sources[end]!.raw).length <= RAW_STATEMENT_BYTES) {
      bytes += firstPiece(sources[end++]!.raw).length;
    }
    const batch = sources.slice(start, end);
    await db.rawRun(
      `INSERT INTO message_raw (message_id, raw, parts) VALUES ${batch.map(() => '(?, ?, ?)').join(', ')}`,
      ...batch.flatMap((m) => [m.id, firstPiece(m.raw), partsAfterFirst(m.raw)]),
    );
    start = end;
  }
  for (const { id, raw } of sources) {
    const parts = partsAfterFirst(raw);
    for (let part = 1; part <= parts; part += PIECES_PER_STATEMENT) {
      const last = Math.min(parts, part + PIECES_PER_STATEMENT - 1);
      const params: unknown[] = [];
      for (let p = part; p <= last; p++) {
        params.push(id, p, raw.subarray(p * RAW_PIECE_BYTES, (p + 1) * RAW_PIECE_BYTES));
      }
      await db.rawRun(
        `INSERT INTO message_raw_parts (message_id, part, bytes) VALUES ${Array.from(
          { length: last - part + 1 },
          () => '(?, ?, ?)',
        ).join(', ')}`,
        ...params,
      );
    }
  }
}

/** A message's whole source: its first piece, then the further ones in order. */
export async function readSource(db: Db, id: number): Promise<Buffer | undefined> {
  const first = await db.rawFirst<{ raw: Buffer; parts: number }>(
    'SELECT raw, parts FROM message_raw WHERE message_id = ?',
    id,
  );
  if (!first || first.parts === 0) return first?.raw;
  const rest = await db.rawAll<{ bytes: Buffer }>(
    'SELECT bytes FROM message_raw_parts WHERE message_id = ? ORDER BY part',
    id,
  );
  if (rest.length !== first.parts) {
    throw new Error(`message ${id}: its source has ${rest.length} of ${first.parts} further pieces`);
  }
  return Buffer.concat([first.raw, ...rest.map((r) => r.bytes)]);
}

const firstPiece = (raw: Buffer): Buffer =>
  raw.length > RAW_PIECE_BYTES ? raw.subarray(0, RAW_PIECE_BYTES) : raw;

const partsAfterFirst = (raw: Buffer): number => Math.max(0, Math.ceil(raw.length / RAW_PIECE_BYTES) - 1);
