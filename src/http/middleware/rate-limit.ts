import type { Context, MiddlewareHandler } from 'hono';
import type { ApiRate } from '../../mailbox/limits/api-rate.js';
import type { AppEnv } from '../context.js';
import { sendError } from '../errors.js';

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

/**
 * Fixed one-minute windows per API key, with IETF RateLimit-* headers and Retry-After on 429;
 * the counter (mailbox/limits/api-rate.ts) is shared by the nodes on PostgreSQL, where the key's
 * look-up counts the request (apiKeyAuth).
 */
export function rateLimit(perMinute: number, rate: ApiRate): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Counted already where the key was looked up (ApiRate.authenticate).
    const { hits, resetMs } = c.var.rateCount ?? (await rate.count(c.var.caller.keyId));
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    setRateLimitHeaders(c, perMinute, perMinute - hits, reset);
    if (hits > perMinute) {
      return sendRateLimited(
        c,
        reset,
        `rate limit of ${perMinute} requests per minute exceeded; retry in ${reset}s`,
      );
    }
    return next();
  };
}
