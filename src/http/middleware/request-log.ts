import type { Context, MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import type { AppEnv } from '../context.js';
import type { KeyCaller } from '../../mailbox/caller.js';
import { afterResponse, routeLabel } from './metrics.js';

/** Probes a load balancer or scraper repeats all day: logged at debug, so they do not drown the rest. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * `X-Request-Id`: a caller's own id is kept when it is 1 to 128 letters, digits, `_`, `-` or
 * `=`; anything else (or none) gets a fresh UUID. Echoed on every response.
 */
export const requestIds = (): MiddlewareHandler<AppEnv> => requestId({ limitLength: 128 });

/**
 * One JSON line per request, written when the response is ready (for an event stream: when it
 * starts): method, route pattern (never the raw path), status, duration, request id and the
 * API key's id when one authenticated. Never the key, a header value or a body.
 */
export function requestLog(log: Logger): MiddlewareHandler<AppEnv> {
  return afterResponse<Context<AppEnv>>((c, status, seconds) => {
    const route = routeLabel(c);
    const level = status >= 500 ? 'error' : PROBES.has(route) ? 'debug' : 'info';
    log[level](
      {
        requestId: c.get('requestId'),
        method: c.req.method,
        route,
        status,
        ms: Math.round(seconds * 10_000) / 10,
        // Unset before authentication (and on routes without a key).
        keyId: (c.get('caller') as KeyCaller | undefined)?.keyId,
      },
      'request',
    );
  });
}
