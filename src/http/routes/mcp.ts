import type { MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';

/**
 * `/mcp`: the MCP door (contract 13), behind the same API-key authentication, failed-auth
 * throttle, rate limit and body checks as `/api/v1`. Stateless Streamable HTTP: POST carries
 * every exchange; GET (a server-initiated stream) and DELETE (ending a session) have nothing to
 * do without sessions and answer 405, as the transport specification allows.
 */
export function registerMcpRoutes(app: OpenAPIHono<AppEnv>, guards: MiddlewareHandler<AppEnv>[]): void {
  app.use('/mcp', ...guards);
  app.post('/mcp', async (c) => {
    const url = new URL(c.req.url);
    const context = {
      deps: c.var.deps,
      caller: c.var.caller,
      apiBase: `${url.origin}/api/v1`,
      requestId: c.var.requestId,
    };
    // The body checks read it already: the transport is handed the parsed value.
    const parsedBody =
      c.req.header('content-length') === '0' ? undefined : await c.req.json().catch(() => undefined);
    // Loaded with the first request: the MCP SDK was ~0.3 CPU-s and ~7 MB of heap at every start.
    const { handleMcpRequest } = await import('../../mcp/server.js');
    return handleMcpRequest(c.req.raw, context, parsedBody);
  });
  app.on(['GET', 'DELETE'], '/mcp', (c) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' },
        id: null,
      },
      405,
      { Allow: 'POST' },
    ),
  );
}
