import { z } from '@hono/zod-openapi';

/** An inbox as `GET /accounts` and MCP's `list_inboxes` show it. */
export const Account = z
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

export type AccountView = z.infer<typeof Account>;
