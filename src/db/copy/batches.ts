import type { Db } from '../connection.js';
import { quoted } from './table-info.js';

/** Rows per batch at most, and the bytes a batch aims at (raw messages are large rows). */
export const MAX_BATCH_ROWS = 1000;
const BATCH_BYTES = 16 * 1024 * 1024;
/** A table's first batch, before its row size is known. */
const FIRST_BATCH_ROWS = 20;
/** Parameters per INSERT statement, under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 30_000;

export type Row = Record<string, unknown>;

/**
 * Reads `table` from the source in batches ordered by `key` (each batch starts after the last
 * key of the one before, so no batch rereads the table) and hands each to `write`. A batch holds
 * up to MAX_BATCH_ROWS rows, fewer when rows are large, so memory stays near BATCH_BYTES.
 */
export async function readInBatches(
  source: Db,
  table: { name: string; columns: string[]; key: string[] },
  write: (rows: Row[]) => Promise<void>,
  maxRows = MAX_BATCH_ROWS,
): Promise<void> {
  const select = `SELECT ${table.columns.map(quoted).join(', ')} FROM ${quoted(table.name)}`;
  const order = `ORDER BY ${table.key.map(quoted).join(', ')} LIMIT ?`;
  const after = `WHERE (${table.key.map(quoted).join(', ')}) > (${table.key.map(() => '?').join(', ')})`;
  let last: unknown[] | undefined;
  let limit = Math.min(FIRST_BATCH_ROWS, maxRows);
  for (;;) {
    const rows = last
      ? await source.rawAll<Row>(`${select} ${after} ${order}`, ...last, limit)
      : await source.rawAll<Row>(`${select} ${order}`, limit);
    if (rows.length === 0) return;
    await write(rows);
    if (rows.length < limit) return;
    const end = rows[rows.length - 1]!;
    last = table.key.map((k) => end[k]);
    const perRow = Math.max(1, rows.reduce((n, row) => n + sizeOf(row), 0) / rows.length);
    limit = Math.max(1, Math.min(maxRows, Math.floor(BATCH_BYTES / perRow)));
  }
}

/** Inserts rows into `table` on the target, as many per statement as the parameter limit allows. */
export async function insertRows(
  target: Db,
  table: string,
  columns: string[],
  rows: unknown[][],
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  const into = `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')}) VALUES `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    await target.rawRun(into + chunk.map(() => tuple).join(', '), ...chunk.flat());
  }
}

function sizeOf(row: Row): number {
  let bytes = 0;
  for (const value of Object.values(row)) {
    if (typeof value === 'string') bytes += value.length;
    else if (Buffer.isBuffer(value)) bytes += value.length;
    else bytes += 8;
  }
  return bytes;
}
