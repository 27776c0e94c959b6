import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** Request headers a browser page may send to the API besides the simple ones. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'X-Request-Id'];

/** Response headers a page may read: the rate limit, the request id, what a 401 or a download says. */
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'WWW-Authenticate',
  'Content-Disposition',
];

/**
 * CORS for /api/v1 (MAILROOM_CORS_ORIGINS), or undefined when no origin is allowed (the default).
 * Answers preflights before authentication, since a browser sends them without the key. `*`
 * allows any origin without credentials; a list of origins allows credentials too.
 */
export function apiCors(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.length === 1 && origins[0] === '*';
  return cors({
    origin: any ? '*' : [...origins],
    credentials: !any,
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
