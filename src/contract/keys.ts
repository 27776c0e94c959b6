import { z } from '@hono/zod-openapi';
import { PERMISSIONS } from '../mailbox/caller.js';

/** One thing a key may do (contract 14). */
export const KeyPermission = z.enum(PERMISSIONS).openapi('KeyPermission', {
  description:
    'read: list, read, search, threads, attachments, raw, events, waiting; organise: flags, move, delete, ' +
    'labels, folders; send: send, reply, forward, drafts; manage: webhooks, lists, suppressions, inbox ' +
    'settings, the audit trail; approve: decide sends waiting for approval',
});

/** The inboxes a key reaches: addresses of its user's, or null for all of them (later ones too). */
export const keyInboxes = z
  .array(z.string().min(1).max(254))
  .min(1, 'name at least one inbox, or null for all of them')
  .max(1000)
  .nullable()
  .openapi({ description: "the user's inboxes the key reaches; null for all of them", example: null });

/** What a key may do; a new key without it gets all but approve. */
export const keyPermissions = z
  .array(KeyPermission)
  .min(1, 'name at least one permission')
  .openapi({ example: ['read', 'organise', 'send', 'manage'] });

/** The reach fields as a key's view shows them (admin API, dashboard, /me). */
export const KeyReach = z.object({ inboxes: keyInboxes, permissions: keyPermissions });

/** GET /api/v1/me: whose key this is and how far it reaches. */
export const Me = z
  .object({
    user: z.object({ id: z.number().int(), name: z.string() }),
    key: z.object({ id: z.string(), name: z.string() }).extend(KeyReach.shape),
  })
  .openapi('Me');
