import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { AuditAction } from '../contract/audit.js';
import type { ContractErrorCode } from '../contract/error-codes.js';
import type { AuditContext } from '../mailbox/audit/audit-context.js';
import { finishAudit, openAudit } from '../mailbox/audit/audit-context.js';
import type { AppEnv } from '../http/context.js';

/**
 * What each form of the dashboard records in the audit trail (contract 15), by its route: every
 * POST the dashboard registers must be here, or the server stops at start (auditedPosts).
 */
export const DASHBOARD_ACTIONS: Record<string, AuditAction> = {
  '/sign-in': 'session.sign_in',
  '/sign-in/link': 'session.sign_in',
  '/sign-out': 'session.sign_out',
  '/compose': 'email.send',
  '/mail/message/update': 'email.update',
  '/mail/message/delete': 'email.delete',
  '/mail/message/label': 'email.label',
  '/mail/message/cancel': 'email.cancel',
  '/approvals/approve': 'approval.approve',
  '/approvals/reject': 'approval.reject',
  '/inboxes': 'inbox.create',
  '/inboxes/connect': 'inbox.connect',
  '/inboxes/oauth/start': 'inbox.connect',
  '/inboxes/remove': 'inbox.remove',
  '/inboxes/:address/settings': 'settings.update',
  '/keys': 'key.create',
  '/keys/:id/revoke': 'key.revoke',
  '/webhooks': 'webhook.create',
  '/webhooks/:id': 'webhook.update',
  '/webhooks/:id/enable': 'webhook.update',
  '/webhooks/:id/disable': 'webhook.update',
  '/webhooks/:id/test': 'webhook.test',
  '/webhooks/:id/rotate': 'webhook.rotate_secret',
  '/webhooks/:id/delete': 'webhook.delete',
  '/labels': 'label.create',
  '/labels/:id': 'label.update',
  '/labels/:id/delete': 'label.delete',
  '/lists/add': 'list.add',
  '/lists/remove': 'list.remove',
  '/suppressions/lift': 'suppression.remove',
  '/domains': 'domain.create',
  '/domains/remove': 'domain.remove',
  '/users': 'user.create',
  '/users/link': 'user.sign_in_link',
  '/users/remove': 'user.remove',
};

/** The request's record while its page runs, so the page's refusal can say its code. */
const current = new AsyncLocalStorage<AuditContext & { refusal?: ContractErrorCode }>();

/** Called where a page draws a refusal: the record's outcome is its code. */
export function noteRefusal(code: ContractErrorCode): void {
  const audit = current.getStore();
  if (audit) audit.refusal ??= code;
}

/** The signed-in person acting, once the session is known. */
export function noteActor(audit: AuditContext | undefined, userId: number): void {
  if (!audit) return;
  audit.actor.id = String(userId);
  audit.userId = userId;
}

function record(action: AuditAction): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const params = Object.values(c.req.param() as Record<string, string>);
    const audit = openAudit({
      door: 'dashboard',
      action,
      requestId: c.get('requestId') ?? null,
      actor: { kind: 'user', id: null },
      userId: null,
      target: params.length > 0 ? params.join('/') : null,
    });
    c.set('audit', audit);
    const scoped = Object.assign(audit, { refusal: undefined as ContractErrorCode | undefined });
    await current.run(scoped, next);
    audit.account ??= await formAccount(c);
    const outcome = scoped.refusal ?? (c.res.status >= 400 ? 'internal_error' : 'ok');
    await finishAudit(c.var.deps, audit, outcome);
  };
}

/** The inbox a form named, when it did (most forms of a mail page carry `account`). */
async function formAccount(c: Context<AppEnv>): Promise<string | null> {
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const account = (form as Record<string, unknown>).account;
  return typeof account === 'string' && account !== '' ? account.trim().toLowerCase() : null;
}

/** `app`, whose every POST records its request under the action DASHBOARD_ACTIONS names for it. */
export function auditedPosts(app: Hono<AppEnv>): Hono<AppEnv> {
  const post = ((path: string, ...handlers: MiddlewareHandler<AppEnv>[]) => {
    const action = DASHBOARD_ACTIONS[path];
    if (action === undefined)
      throw new Error(`dashboard POST ${path} declares no audit action: add it to DASHBOARD_ACTIONS`);
    return app.post(path, record(action), ...handlers);
  }) as Hono<AppEnv>['post'];
  return new Proxy(app, { get: (target, key) => (key === 'post' ? post : Reflect.get(target, key)) });
}
