import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { envelope } from '../../contract/common.js';
import {
  AddListEntryBody,
  ListEntry,
  ListEntryParams,
  ListParams,
  ListQuery,
  Suppression,
  SuppressionParam,
} from '../../contract/lists.js';
import { addEntry, listEntries, removeEntry } from '../../mailbox/policy/lists.js';
import { liftSuppression, listSuppressions } from '../../mailbox/policy/suppressions.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { commonErrors, jsonBody, okResponse } from '../route-docs.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';

const tags = ['Lists'];
const MATCHING =
  'Matching, first decision wins: the inbox entries, then the user-wide ones; within each the address, ' +
  'then its domains, most specific first; block over allow at the same place. No match while an allow ' +
  'list of that direction is non-empty (inbox or user): not allowed.';

const list = createRoute({
  method: 'get',
  path: '/lists/{direction}/{type}',
  operationId: 'listListEntries',
  tags,
  ...needs('read'),
  summary: "One list's entries, newest first: an inbox's own with account, the user-wide ones without",
  description: MATCHING,
  request: { params: ListParams, query: ListQuery },
  responses: {
    ...okResponse(envelope(z.object({ entries: z.array(ListEntry) })), 'The entries'),
    ...commonErrors,
  },
});

const add = createRoute({
  method: 'post',
  path: '/lists/{direction}/{type}',
  operationId: 'addListEntry',
  tags,
  ...needs('manage'),
  ...audited('list.add'),
  summary: 'Add an address or a domain to a list (an entry already there takes the new reason)',
  description: MATCHING,
  request: { params: ListParams, query: ListQuery, ...jsonBody(AddListEntryBody) },
  responses: {
    201: {
      description: 'The entry',
      content: { 'application/json': { schema: envelope(z.object({ entry: ListEntry })) } },
    },
    ...commonErrors,
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/lists/{direction}/{type}/{entry}',
  operationId: 'removeListEntry',
  tags,
  ...needs('manage'),
  ...audited('list.remove'),
  summary: 'Remove an entry from a list',
  request: { params: ListEntryParams, query: ListQuery },
  responses: {
    ...okResponse(envelope(z.object({ entry: z.string(), deleted: z.literal(true) })), 'Removed'),
    ...commonErrors,
  },
});

const suppressions = createRoute({
  method: 'get',
  path: '/suppressions',
  operationId: 'listSuppressions',
  tags,
  ...needs('read'),
  summary: 'Addresses your mail is no longer sent to after a permanent delivery failure, newest first',
  responses: {
    ...okResponse(envelope(z.object({ suppressions: z.array(Suppression) })), 'The suppressions'),
    ...commonErrors,
  },
});

const lift = createRoute({
  method: 'delete',
  path: '/suppressions/{address}',
  operationId: 'liftSuppression',
  tags,
  ...needs('manage'),
  ...audited('suppression.remove'),
  summary: 'Lift a suppression: the address may be sent to again',
  request: { params: SuppressionParam },
  responses: {
    ...okResponse(envelope(z.object({ address: z.string(), deleted: z.literal(true) })), 'Lifted'),
    ...commonErrors,
  },
});

export function registerListRoutes(app: OpenAPIHono<AppEnv>) {
  // The caller: until keys carry their reach, a key acts as its user.
  const refOf = (c: { var: AppEnv['Variables'] }, params: z.infer<typeof ListParams>) => ({
    ...params,
    account: c.var.account,
  });

  app.openapi(list, async (c) => {
    const entries = await listEntries(c.var.deps, c.var.caller, refOf(c, c.req.valid('param')));
    return ok(c, { entries });
  });

  app.openapi(add, async (c) => {
    const { entry, reason } = c.req.valid('json');
    const added = await addEntry(c.var.deps, c.var.caller, refOf(c, c.req.valid('param')), { entry, reason });
    return ok(c, { entry: added }, 201);
  });

  app.openapi(remove, async (c) => {
    const { entry, ...params } = c.req.valid('param');
    return ok(c, await removeEntry(c.var.deps, c.var.caller, refOf(c, params), entry));
  });

  app.openapi(suppressions, async (c) =>
    ok(c, { suppressions: await listSuppressions(c.var.deps, c.var.caller) }),
  );

  app.openapi(lift, async (c) =>
    ok(c, await liftSuppression(c.var.deps, c.var.caller, c.req.valid('param').address)),
  );
}
