import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuditAction, AuditDoor } from '../contract/audit.js';
import type { AuditContext } from '../mailbox/audit/audit-context.js';
import { finishAudit, openAudit } from '../mailbox/audit/audit-context.js';
import type { AppEnv } from './context.js';

/**
 * Where a route's audit action is written: in its own definition (`...audited('email.send')`),
 * and from there in the OpenAPI document, so the test that walks every route reads it too.
 */
export const AUDIT_FIELD = 'x-mailroom-audit';

interface AuditDeclaration {
  action: AuditAction;
  /** The path parameter naming the route's inbox, when the route takes it there. */
  accountParam?: string;
}

/** The action a state-changing route records in the audit trail (contract 15). */
export function audited(action: AuditAction, accountParam?: string) {
  const declaration: AuditDeclaration = accountParam === undefined ? { action } : { action, accountParam };
  return { [AUDIT_FIELD]: declaration } as const;
}

/** The outcome a response says: `ok`, or the error code of its envelope. */
export async function outcomeOfResponse(res: Response): Promise<string> {
  if (res.status < 400) return 'ok';
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } };
    if (typeof body.error?.code === 'string') return body.error.code;
  } catch {
    // not an error envelope
  }
  return res.status >= 500 ? 'internal_error' : `http_${res.status}`;
}

/** What a route acted on, from its path: its parameters' values, `/`-joined (an email's id, a list's entry). */
function targetOf(c: Context<AppEnv>): string | null {
  const values = Object.values(c.req.param() as Record<string, string>);
  return values.length > 0 ? values.join('/') : null;
}

/**
 * The inbox of a request: the one it named in its path, query or body (a send's `from`), read
 * as given when validation refused it, so a refusal is filed under the inbox it was for.
 */
async function accountOf(c: Context<AppEnv>, param: string | undefined): Promise<string | null> {
  const fromPath = param === undefined ? undefined : (c.req.param() as Record<string, string>)[param];
  const named = c.get('account') ?? fromPath ?? c.req.query('account') ?? (await bodyAccount(c));
  return typeof named === 'string' && named.trim() !== '' ? named.trim().toLowerCase() : null;
}

async function bodyAccount(c: Context<AppEnv>): Promise<unknown> {
  if (!c.req.header('content-type')?.startsWith('application/json')) return undefined;
  const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (typeof body?.account === 'string') return body.account;
  if (typeof body?.from !== 'string') return undefined;
  return /<([^<>]+)>\s*$/.exec(body.from)?.[1] ?? body.from;
}

type Actor = (c: Context<AppEnv>) => Pick<AuditContext, 'actor' | 'userId'>;

function auditMiddleware(
  door: AuditDoor,
  { action, accountParam }: AuditDeclaration,
  actorOf: Actor,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const audit = openAudit({
      door,
      action,
      requestId: c.get('requestId') ?? null,
      target: targetOf(c),
      ...actorOf(c),
    });
    c.set('audit', audit);
    const caller = c.get('caller');
    if (caller) c.set('caller', { ...caller, audit });
    await next();
    audit.account ??= await accountOf(c, accountParam);
    await finishAudit(c.var.deps, audit, await outcomeOfResponse(c.res));
  };
}

/** An API key acting: its id and its user. */
export const keyActor: Actor = (c) => ({
  actor: { kind: 'key', id: c.var.caller.keyId },
  userId: c.var.caller.userId,
});

/** The admin token: no id, and no user until the verb names the one it acted on. */
export const adminActor: Actor = () => ({ actor: { kind: 'admin', id: null }, userId: null });

/**
 * Makes every route later registered on `app` record its request in the audit trail: each
 * route that is not a GET declares its action (`...audited()`), or the server stops at start.
 * The record is opened first, so a refusal by the permission check or validation is recorded.
 */
export function enforceRouteAudit<A extends OpenAPIHono<AppEnv>>(app: A, door: AuditDoor, actorOf: Actor): A {
  const register = app.openapi;
  app.openapi = ((route: RouteConfig & { [AUDIT_FIELD]?: AuditDeclaration }, handler: never, hook: never) => {
    const declared = route[AUDIT_FIELD];
    if (declared === undefined && route.method !== 'get')
      throw new Error(
        `route ${route.method.toUpperCase()} ${route.path} changes state but declares no audit action: add ...audited()`,
      );
    if (declared === undefined) return register(route as never, handler, hook);
    const own = route.middleware === undefined ? [] : [route.middleware].flat();
    const middleware = [auditMiddleware(door, declared, actorOf), ...own];
    return register({ ...route, middleware } as never, handler, hook);
  }) as A['openapi'];
  return app;
}
