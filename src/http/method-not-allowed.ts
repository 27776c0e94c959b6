import type { Context, Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { sendError } from './errors.js';

/**
 * The methods each path takes, read from the routes registered on the app (middleware, which
 * Hono records as method ALL, is left out). Built on first use, after every route is added.
 */
export function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => string[] {
  let router: TrieRouter<string> | undefined;
  return (path) => {
    if (!router) {
      router = new TrieRouter<string>();
      for (const route of app.routes) {
        if (route.method !== 'ALL') router.add('ALL', route.path, route.method.toUpperCase());
      }
    }
    const methods = new Set(router.match('GET', path)[0].map(([method]) => method));
    if (methods.has('GET')) methods.add('HEAD'); // Hono answers HEAD with the GET route
    return [...methods].sort();
  };
}

/**
 * Not-found handler: a path that exists under other methods answers 405 with `Allow`; any other
 * path (or a route's own "no such thing", which comes here too) stays 404.
 */
export function notFoundOrNotAllowed(app: Pick<Hono, 'routes'>) {
  const methodsOf = allowedMethods(app);
  return (c: Context) => {
    const allowed = methodsOf(c.req.path);
    const method = c.req.method.toUpperCase();
    if (allowed.length === 0 || allowed.includes(method)) {
      return sendError(c, 'not_found', `no route ${c.req.method} ${c.req.path}`);
    }
    c.header('Allow', allowed.join(', '));
    return sendError(
      c,
      'method_not_allowed',
      `${method} is not allowed on ${c.req.path}; it takes ${allowed.join(', ')}`,
    );
  };
}
