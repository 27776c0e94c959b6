import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listThreads, readThread } from '../../mailbox/reading/read.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { ok } from '../envelope.js';
import { AccountQuery, envelope } from '../../contract/common.js';
import { ListThreadsQuery, Thread, ThreadSummary } from '../../contract/emails.js';
import { commonErrors, okResponse } from '../route-docs.js';

const list = createRoute({
  method: 'get',
  path: '/threads',
  operationId: 'listThreads',
  tags: ['Threads'],
  summary: 'Threads of an inbox, most recent activity first',
  ...needs('read'),
  request: { query: ListThreadsQuery },
  responses: {
    ...okResponse(
      envelope(z.object({ threads: z.array(ThreadSummary), nextCursor: z.string().nullable() })),
      'A page of threads',
    ),
    ...commonErrors,
  },
});

const one = createRoute({
  method: 'get',
  path: '/threads/{threadId}',
  operationId: 'getThread',
  tags: ['Threads'],
  summary: 'One thread: its messages oldest first, across folders',
  ...needs('read'),
  request: { params: z.object({ threadId: z.string().min(1).max(100) }), query: AccountQuery },
  responses: {
    ...okResponse(envelope(Thread), 'The thread'),
    ...commonErrors,
  },
});

export function registerThreadRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const { account, limit, cursor } = c.req.valid('query');
    return ok(c, await listThreads(c.var.deps, c.var.caller, account, limit, cursor));
  });
  app.openapi(one, async (c) =>
    ok(
      c,
      await readThread(c.var.deps, c.var.caller, c.req.valid('query').account, c.req.valid('param').threadId),
    ),
  );
}
