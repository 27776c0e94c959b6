import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { sendError } from '../errors.js';

const WINDOW_MS = 60_000;

/** IETF RateLimit-* headers: the limit, what is left of it, and seconds until the window resets. */
export function setRateLimitHeaders(
  c: Context,
  limit: number,
  remaining: number,
  resetSeconds: number,
): void {
  c.header('RateLimit-Limit', String(limit));
  c.header('RateLimit-Remaining', String(Math.max(0, remaining)));
  c.header('RateLimit-Reset', String(resetSeconds));
}

/** 429 rate_limited with Retry-After (the RateLimit-* headers are set by the caller). */
export function sendRateLimited(c: Context, resetSeconds: number, message: string) {
  c.header('Retry-After', String(resetSeconds));
  return sendError(c, 'rate_limited', message);
}

/** Whole seconds (at least 1) until a window that started at `start` ends. */
export function secondsLeft(start: number, windowMs: number, now: number): number {
  return Math.max(1, Math.ceil((start + windowMs - now) / 1000));
}

/** Fixed one-minute windows per API key, with IETF RateLimit-* headers and Retry-After on 429. */
export function rateLimit(perMinute: number): MiddlewareHandler<AppEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const key = c.var.caller.keyId;
    const now = Date.now();
    let window = windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      windows.set(key, window);
      if (windows.size > 10_000)
        for (const [k, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(k);
    }
    window.count += 1;
    const reset = secondsLeft(window.start, WINDOW_MS, now);
    setRateLimitHeaders(c, perMinute, perMinute - window.count, reset);
    if (window.count > perMinute) {
      return sendRateLimited(
        c,
        reset,
        `rate limit of ${perMinute} requests per minute exceeded; retry in ${reset}s`,
      );
    }
    return next();
  };
}
