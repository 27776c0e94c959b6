import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createDraft, deleteDraft, sendDraft, updateDraft } from '../../mailbox/drafts/drafts.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { EitherAccountQuery, envelope } from '../../contract/common.js';
import {
  CreateDraftBody,
  Draft,
  DraftAccountQuery,
  DraftUidParam,
  IdempotencyHeader,
  SendDraftBody,
  SendResult,
  UpdateDraftBody,
} from '../../contract/send.js';
import { sendingErrors } from './send.js';
import {
  commonErrors,
  jsonBody,
  okResponse,
  remoteErrors,
  sendResponses,
  sendStatus,
} from '../route-docs.js';

// Paths under /emails/drafts have a literal second segment that no /emails/{id}/... route of
// another method shares; {uid} only matches digits, so /emails/drafts never reads as an email id.
const create = createRoute({
  method: 'post',
  path: '/emails/drafts',
  operationId: 'createDraft',
  tags: ['Drafts'],
  summary: 'Create a draft in the Drafts folder',
  description: 'Stored as real MIME with `\\Draft`; `inReplyTo` (a uid) sets the threading headers.',
  ...needs('send'),
  ...audited('draft.create'),
  request: { query: EitherAccountQuery, ...jsonBody(CreateDraftBody) },
  responses: {
    201: {
      description: 'The new draft',
      content: { 'application/json': { schema: envelope(z.object({ draft: Draft })) } },
    },
    ...commonErrors,
    ...remoteErrors,
    413: sendingErrors[413],
  },
});

const update = createRoute({
  method: 'put',
  path: '/emails/drafts/{uid}',
  operationId: 'updateDraft',
  tags: ['Drafts'],
  summary: 'Update a draft: fields given replace, fields absent stay',
  ...needs('send'),
  ...audited('draft.update'),
  request: { params: DraftUidParam, query: EitherAccountQuery, ...jsonBody(UpdateDraftBody) },
  responses: {
    ...okResponse(envelope(z.object({ draft: Draft })), 'The draft as it is now'),
    ...commonErrors,
    ...remoteErrors,
    413: sendingErrors[413],
  },
});

const send = createRoute({
  method: 'post',
  path: '/emails/drafts/{uid}/send',
  operationId: 'sendDraft',
  tags: ['Drafts'],
  summary: 'Send a draft; it moves from Drafts to Sent keeping its uid',
  ...needs('send'),
  ...audited('draft.send'),
  request: {
    params: DraftUidParam,
    query: EitherAccountQuery,
    headers: IdempotencyHeader,
    ...jsonBody(SendDraftBody),
  },
  responses: {
    ...sendResponses(envelope(SendResult), 'The sent email, as a send answers'),
    ...commonErrors,
    ...sendingErrors,
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/emails/drafts/{uid}',
  operationId: 'deleteDraft',
  tags: ['Drafts'],
  summary: 'Delete a draft without sending it',
  ...needs('send'),
  ...audited('draft.delete'),
  request: { params: DraftUidParam, query: DraftAccountQuery },
  responses: {
    ...okResponse(envelope(z.object({ uid: z.number().int(), deleted: z.boolean() })), 'Deleted'),
    ...commonErrors,
    ...remoteErrors,
  },
});

export function registerDraftRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(create, async (c) => {
    const { account: _, ...fields } = c.req.valid('json');
    return ok(c, { draft: await createDraft(c.var.deps, c.var.caller, c.var.account, fields) }, 201);
  });

  app.openapi(update, async (c) => {
    const { uid } = c.req.valid('param');
    const { account: _, ...fields } = c.req.valid('json');
    return ok(c, { draft: await updateDraft(c.var.deps, c.var.caller, c.var.account, uid, fields) });
  });

  app.openapi(send, async (c) => {
    const { uid } = c.req.valid('param');
    const idempotencyKey = c.req.valid('header')['idempotency-key'];
    const { sendAt } = c.req.valid('json');
    const result = await sendDraft(c.var.deps, c.var.caller, c.var.account, uid, {
      idempotencyKey,
      ...(sendAt ? { sendAt } : {}),
    });
    return ok(c, result, sendStatus(result));
  });

  app.openapi(remove, async (c) => {
    const { uid } = c.req.valid('param');
    return ok(c, await deleteDraft(c.var.deps, c.var.caller, c.req.valid('query').account, uid));
  });
}
