import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { sendError } from '../errors.js';

const WINDOW_MS = 60_000;

/** Fixed one-minute windows per API key, with IETF RateLimit-* headers and Retry-After on 429. */
export function rateLimit(perMinute: number): MiddlewareHandler<AppEnv> {
  const windows = new Map<string, { start: number; count: number }>();
  return async (c, next) => {
    const key = c.var.keyId;
    const now = Date.now();
    let window = windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      windows.set(key, window);
      if (windows.size > 10_000)
        for (const [k, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(k);
    }
    window.count += 1;
    const reset = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    c.header('RateLimit-Limit', String(perMinute));
    c.header('RateLimit-Remaining', String(Math.max(0, perMinute - window.count)));
    c.header('RateLimit-Reset', String(reset));
    if (window.count > perMinute) {
      c.header('Retry-After', String(reset));
      return sendError(
        c,
        'rate_limited',
        `rate limit of ${perMinute} requests per minute exceeded; retry in ${reset}s`,
      );
    }
    return next();
  };
}
