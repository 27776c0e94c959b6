import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listFolders } from '../../mailbox/read.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { AccountQuery, bearerSecurity, commonErrors, envelope, okResponse } from '../schemas/common.js';
import { Folder } from '../schemas/emails.js';

const list = createRoute({
  method: 'get',
  path: '/folders',
  tags: ['Folders'],
  summary: 'Folders of an inbox with total and unread counts',
  security: bearerSecurity,
  request: { query: AccountQuery },
  responses: {
    ...okResponse(envelope(z.object({ folders: z.array(Folder) })), 'The folders'),
    ...commonErrors,
  },
});

export function registerFolderRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, (c) =>
    ok(c, { folders: listFolders(c.var.deps, c.var.userId, c.req.valid('query').account) }),
  );
}
