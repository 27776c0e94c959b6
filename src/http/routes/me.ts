import { createRoute } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { describeKey } from '../../mailbox/operations/key-auth.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { envelope } from '../../contract/common.js';
import { Me } from '../../contract/keys.js';
import { needs } from '../route-permission.js';
import { commonErrors, okResponse } from '../route-docs.js';

const me = createRoute({
  method: 'get',
  path: '/me',
  operationId: 'getMe',
  tags: ['Accounts'],
  summary: "Whose key this is, and how far it reaches: its inboxes (null for all the user's) and permissions",
  // Any key may ask what it may do.
  ...needs('none'),
  responses: { ...okResponse(envelope(Me), 'The key and its user'), ...commonErrors },
});

export function registerMeRoute(app: OpenAPIHono<AppEnv>) {
  app.openapi(me, async (c) => ok(c, await describeKey(c.var.deps, c.var.caller)));
}
