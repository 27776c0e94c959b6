import { z } from '@hono/zod-openapi';
import { ENTRY_MAX, normalizeEntry } from '../mailbox/policy/entries.js';

export const LIST_DIRECTIONS = ['send', 'receive'] as const;
export const LIST_TYPES = ['allow', 'block'] as const;

const direction = z.enum(LIST_DIRECTIONS, { error: 'direction must be send or receive' });
const type = z.enum(LIST_TYPES, { error: 'type must be allow or block' });

export const ListEntry = z
  .object({
    entry: z
      .string()
      .openapi({ example: 'example.com', description: 'an address, or a domain with its subdomains' }),
    direction,
    type,
    account: z.string().nullable().openapi({ description: 'the inbox it holds for; null: all your inboxes' }),
    reason: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ListEntry');

/** An entry as the API takes it: an address or a domain, stored lower-case (see normalizeEntry). */
export const entryField = z
  .string({ error: (issue) => (issue.input === undefined ? 'entry is required' : 'entry must be a string') })
  .transform((value, ctx) => {
    const normal = normalizeEntry(value);
    if ('problem' in normal) {
      ctx.addIssue({ code: 'custom', message: normal.problem });
      return z.NEVER;
    }
    return normal.entry;
  })
  .openapi({
    type: 'string',
    maxLength: ENTRY_MAX,
    example: 'bob@example.com',
    description: 'an address (bob@example.com) or a domain (example.com, which covers its subdomains)',
  });

/** `account` of a list route: one inbox's list, or absent for the lists of all your inboxes. */
const listAccount = z.string().min(1, 'account must not be empty').optional().openapi({
  example: 'agent@mailroom.test',
  description: 'the inbox whose list this is (query or body); absent: the user-wide list of all your inboxes',
});

export const ListParams = z.object({
  direction: direction.openapi({ param: { name: 'direction', in: 'path' } }),
  type: type.openapi({ param: { name: 'type', in: 'path' } }),
});

export const ListEntryParams = ListParams.extend({
  entry: entryField.openapi({ param: { name: 'entry', in: 'path' } }),
});

export const ListQuery = z.object({ account: listAccount });

export const AddListEntryBody = z
  .strictObject({
    entry: entryField,
    reason: z.string().max(500, 'reason must be at most 500 characters').nullable().optional(),
    account: listAccount,
  })
  .openapi('AddListEntry');

export const Suppression = z
  .object({
    address: z.string().openapi({ example: 'gone@example.com' }),
    reason: z.string().openapi({ example: 'bounced' }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Suppression');

export const SuppressionParam = z.object({
  address: z
    .string()
    .min(1, 'address is required')
    .transform((value) => value.trim().toLowerCase())
    .openapi({ param: { name: 'address', in: 'path' }, type: 'string', example: 'gone@example.com' }),
});
