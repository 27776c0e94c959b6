import type { MiddlewareHandler } from 'hono';

/** For responses that are data, not pages: nothing may run, load or frame them. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * On every response: `X-Content-Type-Options: nosniff`, so a browser never treats a message,
 * an attachment or JSON as another type (HTML) than the one declared; and, unless the route set
 * its own (the /docs page), a Content-Security-Policy under which nothing runs.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    if (!c.res.headers.has('Content-Security-Policy')) c.res.headers.set('Content-Security-Policy', DATA_CSP);
  };
}
