import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { ok } from '../envelope.js';
import { Account } from '../../contract/accounts.js';
import { envelope } from '../../contract/common.js';
import { commonErrors, okResponse } from '../route-docs.js';

const list = createRoute({
  method: 'get',
  path: '/accounts',
  operationId: 'listAccounts',
  tags: ['Accounts'],
  summary: "The API key's inboxes",
  ...needs('read'),
  responses: {
    ...okResponse(envelope(z.object({ accounts: z.array(Account) })), 'The inboxes'),
    ...commonErrors,
  },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => ok(c, { accounts: await listAccounts(c.var.deps, c.var.caller) }));
}
