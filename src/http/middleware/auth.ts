import type { Context, MiddlewareHandler } from 'hono';
import { redeemStreamToken } from '../../mailbox/events/stream-token.js';
import { authenticateKey, noteKeyUsed } from '../../mailbox/operations/key-auth.js';
import type { AppEnv } from '../context.js';
import { sendError } from '../errors.js';
import type { AuthThrottle } from './auth-throttle.js';
import type { ApiRate } from '../../mailbox/limits/api-rate.js';
import type { KeyCaller } from '../../mailbox/caller.js';

const TOUCH_INTERVAL_MS = 60_000;

/**
 * Bearer API key → the key's user and reach (the request's Caller), and on PostgreSQL the
 * request counted in the key's rate window by the same statement (`rate`; rateLimit reads it).
 * Same answer for missing, malformed, unknown and revoked keys; each such answer counts against
 * the client address in `throttle`.
 */
export function apiKeyAuth(throttle: AuthThrottle, rate: ApiRate): MiddlewareHandler<AppEnv> {
  const lastTouched = new Map<string, number>();
  return async (c, next) => {
    const token = streamTokenOf(c);
    if (token !== undefined) {
      const redeemed = await redeemStreamToken(c.var.deps, token);
      if (!redeemed) {
        throttle.failed(c);
        return sendError(
          c,
          'unauthorized',
          'the stream token is not valid, has expired (they last 60 s) or its key was revoked: ask POST /api/v1/events/token for a new one',
        );
      }
      c.set('caller', redeemed.caller);
      c.set('streamTokenAccount', redeemed.account);
      return next();
    }
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const caller = match ? await authenticated(c, match[1]!) : undefined;
    if (!caller) {
      throttle.failed(c);
      c.header('WWW-Authenticate', 'Bearer');
      return sendError(c, 'unauthorized', 'a valid API key is required: Authorization: Bearer <key>');
    }
    const now = Date.now();
    if (now - (lastTouched.get(caller.keyId) ?? 0) > TOUCH_INTERVAL_MS) {
      lastTouched.set(caller.keyId, now);
      await noteKeyUsed(c.var.deps, caller.keyId);
    }
    c.set('caller', caller);
    return next();
  };

  async function authenticated(c: Context<AppEnv>, key: string): Promise<KeyCaller | undefined> {
    if (!rate.authenticate) return await authenticateKey(c.var.deps, key);
    const found = await rate.authenticate(key);
    if (found) c.set('rateCount', found.count);
    return found?.caller;
  }
}

/** The event stream is the one route a stream token opens, and only for a request without a key. */
const STREAM_PATH = '/api/v1/events';

function streamTokenOf(c: Context<AppEnv>): string | undefined {
  if (c.req.method !== 'GET' || c.req.path !== STREAM_PATH || c.req.header('authorization') !== undefined)
    return undefined;
  return c.req.query('token');
}
