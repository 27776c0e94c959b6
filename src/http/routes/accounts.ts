import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { listAccounts } from '../../mailbox/reading/accounts.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { envelope } from '../../contract/common.js';
import { bearerSecurity, commonErrors, okResponse } from '../route-docs.js';

const Account = z
  .object({
    address: z.string(),
    kind: z.enum(['local', 'imap']),
    displayName: z.string(),
    created_at: z.string(),
    sync: z
      .object({
        state: z.string().nullable(),
        error: z.string().nullable(),
        lastSyncAt: z.string().nullable(),
        certificates: z.enum(['system', 'given-ca', 'off']).openapi({
          description:
            "how the servers' TLS certificates are checked: against the system's CAs, against the CA given " +
            'when connecting, or not at all (`tls.insecure`)',
        }),
      })
      .optional()
      .openapi({ description: 'IMAP-connected inboxes only' }),
  })
  .openapi('Account');

const list = createRoute({
  method: 'get',
  path: '/accounts',
  operationId: 'listAccounts',
  tags: ['Accounts'],
  summary: "The API key's inboxes",
  security: bearerSecurity,
  responses: {
    ...okResponse(envelope(z.object({ accounts: z.array(Account) })), 'The inboxes'),
    ...commonErrors,
  },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => ok(c, { accounts: await listAccounts(c.var.deps, c.var.userId) }));
}
