import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ErrorDetail } from '../../mailbox/errors.js';
import type { AppEnv } from '../context.js';
import { accountEither } from '../../contract/common.js';
import { requestErrorMap, zodDetails } from '../../contract/validation-messages.js';
import type { RequestPart } from '../../contract/validation-messages.js';
import { sendError, sendValidationDetails } from '../errors.js';

type Schema = z.ZodType;
interface Parts {
  query?: Schema;
  path?: Schema;
  body?: Schema;
  /** The route takes a request without a body too (`required: false`). */
  bodyOptional?: boolean;
}

/** The zod schemas a route declares for its query, path and JSON body. */
function partsOf(request: RouteConfig['request']): Parts {
  const media = request?.body?.content?.['application/json'];
  const body = media && 'schema' in media ? media.schema : undefined;
  return {
    query: request?.query as Schema | undefined,
    path: request?.params as Schema | undefined,
    body: body && typeof (body as Schema).safeParseAsync === 'function' ? (body as Schema) : undefined,
    bodyOptional: request?.body?.required === false,
  };
}

/** The query as @hono/zod-validator reads it: a repeated name becomes an array. */
function queryOf(c: Context): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0]! : v] as const),
  );
}

/**
 * Validates the query, the path and the JSON body of a request together and answers one 400
 * listing every problem, where @hono/zod-openapi would stop at the first part that fails.
 * It runs before that library's own validators, which then find nothing left to refuse.
 */
export function validateRequest(request: RouteConfig['request']): MiddlewareHandler | undefined {
  const parts = partsOf(request);
  if (!parts.query && !parts.path && !parts.body) return undefined;
  return async (c, next) => {
    const inputs: Record<RequestPart, unknown> = { query: queryOf(c), path: c.req.param(), body: undefined };
    if (parts.body) {
      // An empty body is not JSON; the jsonBody middleware has checked any other body parses.
      if ((await c.req.text()).trim() !== '') inputs.body = await c.req.json();
      else if (!parts.bodyOptional)
        return sendError(c, 'invalid_json', 'request body is empty: this route takes a JSON object');
    }
    const details: ErrorDetail[] = [];
    for (const part of ['path', 'query', 'body'] as const) {
      const schema = parts[part];
      if (!schema || (part === 'body' && inputs.body === undefined)) continue;
      const result = await schema.safeParseAsync(inputs[part], { error: requestErrorMap(part) });
      if (!result.success) details.push(...zodDetails(result.error, part === 'path' ? 'path' : ''));
    }
    const account = accountOf(parts, inputs);
    if (account.problem) {
      // Said once, here, rather than also by a schema that requires it in one place.
      const others = details.filter((detail) => detail.path !== 'account');
      details.splice(0, details.length, account.problem, ...others);
    }
    if (details.length > 0) return sendValidationDetails(c, details);
    if (account.value !== undefined) c.set('account', account.value);
    return next();
  };
}

/** Makes every route later registered on `app` validate its whole request at once. */
export function validateWholeRequests<A extends OpenAPIHono<AppEnv>>(app: A): A {
  const register = app.openapi;
  app.openapi = ((route: RouteConfig, handler: never, hook: never) => {
    const check = validateRequest(route.request);
    const own = route.middleware === undefined ? [] : [route.middleware].flat();
    return register(
      { ...route, middleware: check ? [check, ...own] : route.middleware } as never,
      handler,
      hook,
    );
  }) as A['openapi'];
  return app;
}

const PLACE: Record<'query' | 'body', string> = { query: 'the query string', body: 'the JSON body' };

function declaresAccount(schema: Schema | undefined): boolean {
  const shape = (schema as { shape?: object } | undefined)?.shape;
  return shape !== undefined && 'account' in shape;
}

/**
 * Whether a route may be called without any account (GET /events: all the key's inboxes). An
 * `accountEither` field is optional only because the other place may hold it.
 */
function accountOptional(parts: Parts, places: readonly ('query' | 'body')[]): boolean {
  return places.every((part) => {
    const field = (parts[part] as unknown as { shape: Record<string, Schema> }).shape.account;
    return field !== undefined && field !== accountEither && field.safeParse(undefined).success;
  });
}

/**
 * Contract 13, in one place: `account` may be given in the query or in the JSON body of a route
 * that declares it in either; it is required in one of them, and two given must agree.
 */
function accountOf(
  parts: Parts,
  inputs: Record<RequestPart, unknown>,
): { value?: string; problem?: ErrorDetail } {
  const places = (['query', 'body'] as const).filter((part) => declaresAccount(parts[part]));
  if (places.length === 0) return {};
  const given = places.flatMap((part) => {
    const value = (inputs[part] as { account?: unknown } | undefined)?.account;
    return value === undefined ? [] : [{ part, value }];
  });
  const [first, second] = given;
  if (!first) {
    if (accountOptional(parts, places)) return {};
    const where = places.map((part) => PLACE[part]).join(' or ');
    return { problem: { path: 'account', message: `account is required (in ${where})` } };
  }
  if (second && second.value !== first.value && typeof second.value === 'string') {
    const message =
      `account is given twice and the two differ: ${JSON.stringify(first.value)} in the query, ` +
      `${JSON.stringify(second.value)} in the body; give it once, or the same in both`;
    return { problem: { path: 'account', message } };
  }
  // A value of the wrong type is the schema's to report.
  return typeof first.value === 'string' ? { value: first.value } : {};
}
