import type { Db } from '../db/connection.js';

const INSIDE = {};

/** A window as a hit left it: how many it holds and how long until it ends. */
export interface WindowCount {
  hits: number;
  resetMs: number;
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
    const { clockPlusMs, fromAsyncCommit } = this.db.dialect;
    const open = `rate_windows.window_start > ${clockPlusMs}`;
    // A count lost in a crash lets a few more requests through; waiting for the disk on each
    // request would cost more than the limit is worth.
    const row = (await this.db.rawFirst<{ hits: number; window_start: string; now: string }>(
      `INSERT INTO rate_windows (subject, window_start, hits)
         SELECT ?, ${clockPlusMs}, 1 ${fromAsyncCommit} WHERE true
       ON CONFLICT (subject) DO UPDATE SET
         hits = CASE WHEN ${open} THEN rate_windows.hits + 1 ELSE 1 END,
         window_start = CASE WHEN ${open} THEN rate_windows.window_start ELSE excluded.window_start END
       RETURNING hits, window_start, ${clockPlusMs} AS now`,
      subject,
      0,
      -windowMs,
      -windowMs,
      0,
    ))!;
    const resetMs = Date.parse(row.window_start) + windowMs - Date.parse(row.now);
    return { hits: Number(row.hits), resetMs };
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
