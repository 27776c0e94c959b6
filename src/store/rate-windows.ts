import type { Db } from '../db/connection.js';

const INSIDE = {};

/** A window as a hit left it: how many it holds and how long until it ends. */
export interface WindowCount {
  hits: number;
  resetMs: number;
}

/** What the upsert of a hit answers. */
export interface HitRow {
  hits: number;
  window_start: string;
  now: string;
}

/**
 * The upsert that counts a hit on `subject` (an SQL expression) in its `windowMs` window, read
 * off the database's clock so nodes agree, and the parameters it takes after any in `subject`
 * and `from`; `from` is the FROM clause of its one row (Dialect.fromAsyncCommit, with any table
 * `subject` reads). A count lost in a crash lets a few more requests through: waiting for the
 * disk on each request would cost more than the limit is worth, so its commit does not.
 */
export function hitStatement(
  db: Db,
  subject: string,
  from: string,
  windowMs: number,
): { sql: string; params: number[] } {
  const { clockPlusMs } = db.dialect;
  const open = `rate_windows.window_start > ${clockPlusMs}`;
  return {
    sql: `INSERT INTO rate_windows (subject, window_start, hits)
         SELECT ${subject}, ${clockPlusMs}, 1 ${from} WHERE true
       ON CONFLICT (subject) DO UPDATE SET
         hits = CASE WHEN ${open} THEN rate_windows.hits + 1 ELSE 1 END,
         window_start = CASE WHEN ${open} THEN rate_windows.window_start ELSE excluded.window_start END
       RETURNING hits, window_start, ${clockPlusMs} AS now`,
    params: [0, -windowMs, -windowMs, 0],
  };
}

/**
 * The count a hit's row says. A window a statement started a little later opened (statements at
 * once read the clock apart, and the later may commit first) still ends within one window.
 */
export function windowCountOf(row: HitRow, windowMs: number): WindowCount {
  const left = Date.parse(row.window_start) + windowMs - Date.parse(row.now);
  return { hits: Number(row.hits), resetMs: Math.min(windowMs, Math.max(0, left)) };
}

/**
 * Fixed windows of limits the nodes share (migration 026): each hit is one upsert that starts a
 * new window when the last one has ended, read off the database's clock so nodes agree.
 */
export class RateWindowStore {
  constructor(private readonly db: Db) {}

  /**
   * Counts a hit on `subject` in its `windowMs` window; answers the window's count with it. Call
   * outside any transaction: its commit does not wait for the disk (Dialect.fromAsyncCommit),
   * which would hold for a whole transaction it joined.
   */
  async hit(subject: string, windowMs: number): Promise<WindowCount> {
    if (this.db.perTransaction(INSIDE, () => true))
      throw new Error('a rate window is counted outside transactions');
    const hit = hitStatement(this.db, '?', this.db.dialect.fromAsyncCommit, windowMs);
    return windowCountOf((await this.db.rawFirst<HitRow>(hit.sql, subject, ...hit.params))!, windowMs);
  }

  /** Forgets windows that started more than `olderThanMs` ago; returns how many. */
  async prune(olderThanMs: number): Promise<number> {
    return (
      await this.db.rawRun(
        `DELETE FROM rate_windows WHERE window_start < ${this.db.dialect.clockPlusMs}`,
        -olderThanMs,
      )
    ).changes;
  }
}
