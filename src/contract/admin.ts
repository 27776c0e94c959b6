import { z } from '@hono/zod-openapi';
import { KeyReach, keyInboxes, keyPermissions } from './keys.js';

const createdAt = z.string().openapi({ format: 'date-time' });

export const AdminDomain = z
  .object({
    name: z.string().openapi({ example: 'example.com' }),
    dnsRecords: z.array(z.object({ type: z.enum(['MX', 'TXT']), name: z.string(), value: z.string() })),
    created_at: createdAt,
  })
  .openapi('AdminDomain');

export const AdminUser = z
  .object({ id: z.number().int(), name: z.string(), admin: z.boolean(), created_at: createdAt })
  .openapi('AdminUser');

export const AdminKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    user: z.string().nullable(),
    created_at: createdAt,
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .extend(KeyReach.shape)
  .openapi('AdminKey');

export const AdminKeyWithSecret = AdminKey.extend({
  key: z.string().openapi({ description: 'the API key; shown only in this response' }),
}).openapi('AdminKeyWithSecret');

export const AdminInbox = z
  .object({
    address: z.string(),
    kind: z.enum(['local', 'imap']),
    user: z.string().nullable(),
    displayName: z.string(),
    created_at: createdAt,
  })
  .openapi('AdminInbox');

/** The servers a connected mailbox was given, and where they came from (no password). */
export const ConnectedServers = z
  .object({
    imap: z.string().openapi({ example: 'imaps://owner%40example.net@imap.example.net:993' }),
    smtp: z.string(),
    auth: z.enum(['password', 'oauth2']),
    source: z.string().openapi({ example: 'the SRV records of example.net (RFC 6186)' }),
    tried: z
      .array(z.string())
      .optional()
      .openapi({ description: 'autodiscovery: what answered nothing first' }),
  })
  .openapi('ConnectedServers');

/** A node sharing the database (contract 11): its heartbeat and the work it holds. */
export const AdminNode = z
  .object({
    id: z.string().openapi({ description: 'MAILROOM_NODE_ID', example: 'mail-1' }),
    version: z.string(),
    startedAt: z.string().openapi({ format: 'date-time' }),
    lastSeenAt: z.string().openapi({ format: 'date-time' }),
    holds: z.object({
      imapInboxes: z.array(z.string()).openapi({ description: 'the external inboxes this node syncs' }),
    }),
  })
  .openapi('AdminNode');
export type AdminNodeView = z.infer<typeof AdminNode>;

/** A user by its id (digits) or its name. */
export const userRef = z
  .union([z.string().min(1), z.number().int()])
  .transform(String)
  .openapi({ description: 'the user id or name', example: 'default' });

/** POST /admin/v1/domains */
export const CreateDomainBody = z.object({ domain: z.string().min(1) });

/** POST /admin/v1/users */
export const CreateUserBody = z.object({
  name: z.string().min(1),
  password: z
    .string()
    .optional()
    .openapi({ description: 'lets the user sign in to the dashboard (8 to 1024 characters)' }),
  admin: z.boolean().optional().openapi({ description: 'the user also sees the admin pages' }),
});

/** POST /admin/v1/keys (the dashboard's key form takes all but the user) */
export const CreateKeyBody = z.object({
  user: userRef,
  name: z.string().max(100).optional(),
  inboxes: keyInboxes.optional(),
  permissions: keyPermissions.optional(),
});
