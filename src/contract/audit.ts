import { z } from '@hono/zod-openapi';
import { isoDateQuery, limitQuery } from './common.js';

/** The doors a request can come through (contract 15). */
export const AUDIT_DOORS = ['api', 'mcp', 'dashboard', 'admin', 'cli'] as const;
export type AuditDoor = (typeof AUDIT_DOORS)[number];

/** Who acted: an API key (its id), a person in the dashboard (their user id), the admin token or the CLI (no id). */
export const AUDIT_ACTOR_KINDS = ['key', 'user', 'admin'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * Every action a state-changing route, tool, page or command declares: `resource.verb`. A route
 * that changes state without one of these stops the server at start.
 */
export const AUDIT_ACTIONS = [
  'email.send',
  'email.reply',
  'email.forward',
  'email.update',
  'email.delete',
  'email.empty_folder',
  'email.label',
  'email.unlabel',
  'draft.create',
  'draft.update',
  'draft.send',
  'draft.delete',
  'folder.create',
  'folder.delete',
  'label.create',
  'label.update',
  'label.delete',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.test',
  'list.add',
  'list.remove',
  'suppression.remove',
  'settings.update',
  'events.token',
  'key.create',
  'key.revoke',
  'inbox.create',
  'inbox.connect',
  'inbox.remove',
  'domain.create',
  'domain.remove',
  'user.create',
  'user.remove',
  'user.password',
  'user.sign_in_link',
  'session.sign_in',
  'session.sign_out',
  'approval.approve',
  'approval.reject',
  'email.cancel',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AuditRecord = z
  .object({
    id: z.string().openapi({ example: 'aud_3kq9Xb1w' }),
    at: z.string().openapi({ format: 'date-time' }),
    actor: z.object({
      kind: z.enum(AUDIT_ACTOR_KINDS),
      id: z
        .string()
        .nullable()
        .openapi({ description: "the key's id, the person's user id; null for the admin token and the CLI" }),
    }),
    door: z.enum(AUDIT_DOORS),
    action: z.string().openapi({ example: 'email.send', description: 'what was asked: resource.verb' }),
    account: z
      .string()
      .nullable()
      .openapi({ description: 'the inbox it concerned; null for user-wide actions' }),
    target: z.string().nullable().openapi({
      description: 'what it acted on: an email, key, label, list entry... (never a body or secret)',
    }),
    outcome: z.string().openapi({ example: 'ok', description: '`ok`, or the error code of the refusal' }),
    requestId: z
      .string()
      .nullable()
      .openapi({ description: "the response's X-Request-Id (null from the CLI)" }),
    hash: z.string().openapi({
      description:
        "hex SHA-256 of the previous record's hash, a newline, and this record without hash as JSON with sorted keys and no spaces",
    }),
  })
  .openapi('AuditRecord');

export const AuditQuery = z.object({
  account: z.string().min(1, 'account must not be empty').optional().openapi({
    description:
      "one inbox's records; absent: all the records you may see (the key's inboxes and user-wide ones)",
  }),
  since: isoDateQuery.optional(),
  action: z.string().min(1).optional().openapi({ example: 'email.send' }),
  outcome: z
    .string()
    .min(1)
    .optional()
    .openapi({ example: 'forbidden', description: '`ok` or an error code' }),
  key: z.string().min(1).optional().openapi({ description: 'only what this key (its id) did' }),
  limit: limitQuery,
  cursor: z.string().optional(),
});

export const AuditList = z.object({
  records: z.array(AuditRecord),
  nextCursor: z.string().nullable(),
});
