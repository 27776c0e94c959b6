import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { AuditList, AuditQuery } from '../../contract/audit.js';
import { envelope } from '../../contract/common.js';
import { listAllAudit } from '../../mailbox/audit/trail.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { commonErrors, okResponse } from '../route-docs.js';

/** GET /admin/v1/audit: every user's records, as GET /api/v1/audit shows one user's. */
export function registerAdminAuditRoute(
  app: OpenAPIHono<AppEnv>,
  common: { tags: string[]; security: { adminAuth: never[] }[] },
) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/audit',
      operationId: 'listAllAuditRecords',
      ...common,
      summary: 'The audit trail of every user, newest first',
      request: { query: AuditQuery },
      responses: { ...okResponse(envelope(AuditList), 'The records'), ...commonErrors },
    }),
    async (c) => ok(c, await listAllAudit(c.var.deps, c.req.valid('query'))),
  );
}
