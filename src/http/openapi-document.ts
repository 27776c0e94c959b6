import type { OpenAPIHono } from '@hono/zod-openapi';
import { VERSION } from '../version.js';
import type { AppEnv } from './context.js';

type Json = Record<string, unknown>;
type Responses = Record<string, Json>;

export interface DocumentOptions {
  title: string;
  description: string;
  /** Where the document's paths live, e.g. /api/v1. */
  server: string;
  securityScheme: { name: string; description: string };
  /** Responses pass the per-key rate limiter, so they carry RateLimit-* headers. */
  rateLimited: boolean;
}

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const HEADERS: Record<string, Json> = {
  'RateLimit-Limit': {
    description: 'requests allowed per minute for this API key',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'seconds until the window resets', schema: { type: 'integer' } },
  'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer' } },
  'WWW-Authenticate': { description: 'the scheme to authenticate with: Bearer', schema: { type: 'string' } },
};
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/**
 * Serves the app's OpenAPI 3.1 document at `path` with what the routes' own definitions cannot
 * say one by one: the headers every response carries, the 413/415 the body check may answer on
 * any route with a body, the 500 any route may answer, and the license. Built once, on first use.
 */
export function serveOpenApiDocument(app: OpenAPIHono<AppEnv>, path: string, options: DocumentOptions) {
  let document: Json | undefined;
  app.get(path, (c) => {
    document ??= describe(app, options);
    return c.json(document);
  });
}

function describe(app: OpenAPIHono<AppEnv>, options: DocumentOptions): Json {
  app.openAPIRegistry.registerComponent('securitySchemes', options.securityScheme.name, {
    type: 'http',
    scheme: 'bearer',
    description: options.securityScheme.description,
  });
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: VERSION,
      description: options.description,
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    servers: [{ url: options.server }],
  }) as unknown as Json;
  const used = new Set<string>();
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const responses = (operation.responses ??= {}) as Responses;
      if (['post', 'put', 'patch'].includes(method)) {
        responses['413'] ??= error('The request body is over the size limit');
        responses['415'] ??= error('The request body is not sent as application/json');
      }
      responses['500'] ??= error('An internal error; the message carries no detail');
      for (const [status, response] of Object.entries(responses)) {
        const names = headersOf(status, options.rateLimited);
        addHeaders(response, names);
        for (const name of names) used.add(name);
      }
    }
  }
  const components = (doc.components ??= {}) as Json;
  components.headers = Object.fromEntries([...used].sort().map((name) => [name, HEADERS[name]]));
  return doc;
}

function headersOf(status: string, rateLimited: boolean): string[] {
  const names: string[] = [];
  // 401 and the failed-authentication 429 come before the per-key limiter; it sets the rest.
  if (rateLimited && status !== '401') names.push(...RATE_LIMIT);
  if (status === '401') names.push('WWW-Authenticate');
  if (status === '429' || status === '503') names.push('Retry-After');
  return names;
}

function addHeaders(response: Json, names: string[]) {
  if (names.length === 0) return;
  const headers = { ...((response.headers ?? {}) as Json) };
  for (const name of names) headers[name] ??= ref(name);
  response.headers = headers;
}
