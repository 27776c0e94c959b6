import type { WindowCount } from '../../store/rate-windows.js';
import type { KeyCaller } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { authenticateKeyCounting } from '../operations/key-auth.js';

/** The per-key API rate limit counts requests in fixed windows of this length. */
export const API_RATE_WINDOW_MS = 60_000;

/** The request counter of the per-key API rate limit (MAILROOM_RATE_LIMIT). */
export interface ApiRate {
  /** Counts one request of an API key; answers its window's count, this request included. */
  count(keyId: string): Promise<WindowCount>;
  /**
   * Authenticates a key and counts its request in one statement, where counting is a round trip
   * of its own (PostgreSQL): one round trip before the request's work instead of two in a row.
   * Undefined where it is not (SQLite).
   */
  authenticate?: (key: string) => Promise<{ caller: KeyCaller; count: WindowCount } | undefined>;
}

/**
 * On PostgreSQL, where several nodes may serve one key, a row per key counted by one upsert
 * (store/rate-windows.ts), so the limit holds across nodes. On SQLite one process serves
 * everything, so a map in memory is the whole count, and a read request is not made to wait for
 * SQLite's one writer.
 */
export function apiRate(deps: MailboxDeps, windowMs = API_RATE_WINDOW_MS): ApiRate {
  if (deps.config.databaseUrl) {
    return {
      count: (keyId) => deps.store.rateWindows.hit(`key:${keyId}`, windowMs),
      authenticate: (key) => authenticateKeyCounting(deps, key, windowMs),
    };
  }
  const windows = new Map<string, { start: number; hits: number }>();
  const count = async (keyId: string): Promise<WindowCount> => {
    const now = Date.now();
    let window = windows.get(keyId);
    if (!window || now - window.start >= windowMs) {
      window = { start: now, hits: 0 };
      windows.set(keyId, window);
      if (windows.size > 10_000)
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
    }
    window.hits += 1;
    return { hits: window.hits, resetMs: window.start + windowMs - now };
  };
  return { count };
}
