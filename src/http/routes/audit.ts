import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { AuditList, AuditQuery } from '../../contract/audit.js';
import { envelope } from '../../contract/common.js';
import { listAudit } from '../../mailbox/audit/trail.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { commonErrors, okResponse } from '../route-docs.js';
import { needs } from '../route-permission.js';

const list = createRoute({
  method: 'get',
  path: '/audit',
  operationId: 'listAuditRecords',
  tags: ['Audit'],
  ...needs('manage'),
  summary:
    'The audit trail: every state-changing request of your keys, dashboard and admin, refused ones too',
  description:
    'Newest first. Without `account`: all your records; a key limited to some inboxes sees those ' +
    "inboxes' records and the user-wide ones (account null). Each record carries `hash`, chained " +
    'to the one before it; `mailroom audit verify` checks the chain.',
  request: { query: AuditQuery },
  responses: { ...okResponse(envelope(AuditList), 'The records'), ...commonErrors },
});

export function registerAuditRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => ok(c, await listAudit(c.var.deps, c.var.caller, c.req.valid('query'))));
}
