import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { applyLabels, removeLabel } from '../../mailbox/organising/labels.js';
import { emptyFolder } from '../../mailbox/organising/empty-folder.js';
import { deleteEmail, updateEmail } from '../../mailbox/organising/organise.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { UidParam, envelope } from '../../contract/common.js';
import { Email } from '../../contract/emails.js';
import {
  ApplyLabelsBody,
  DeleteEmailQuery,
  DeleteEmailResult,
  EmailLabelParams,
  EmptyFolderQuery,
  EmptyFolderResult,
  OrganiseBodyQuery,
  OrganiseQuery,
  UpdateEmailBody,
} from '../../contract/organise.js';
import { commonErrors, jsonBody, okResponse, remoteErrors } from '../route-docs.js';

const emailResponse = okResponse(envelope(z.object({ email: Email })), 'The email as it is now');

const update = createRoute({
  method: 'patch',
  path: '/emails/{id}',
  operationId: 'updateEmail',
  tags: ['Emails'],
  summary: 'Mark read or unread, flag or unflag, or move to another folder',
  description:
    'The uid stays the same across moves. Moving into or out of Drafts is refused: drafts have their own routes.',
  ...needs('organise'),
  ...audited('email.update'),
  request: { params: UidParam, query: OrganiseBodyQuery, ...jsonBody(UpdateEmailBody) },
  responses: { ...emailResponse, ...commonErrors, ...remoteErrors },
});

const remove = createRoute({
  method: 'delete',
  path: '/emails/{id}',
  operationId: 'deleteEmail',
  tags: ['Emails'],
  summary: 'Move an email to Trash, or delete it for good',
  description:
    'Moves to Trash keeping the uid. An email already in Trash, a draft, or any email with permanent=true ' +
    'is deleted for good. Trash is emptied of mail older than MAILROOM_TRASH_DAYS.',
  ...needs('organise'),
  ...audited('email.delete'),
  request: { params: UidParam, query: DeleteEmailQuery },
  responses: {
    ...okResponse(envelope(DeleteEmailResult), 'Where the email went'),
    ...commonErrors,
    ...remoteErrors,
  },
});

const empty = createRoute({
  method: 'delete',
  path: '/emails',
  operationId: 'emptyFolder',
  tags: ['Emails'],
  summary: 'Empty a folder: every email to Trash, or for good',
  description:
    'Every email of the folder goes as a single delete would: to Trash keeping its uid, or for good with ' +
    'permanent=true, and always for good when the folder is Trash or Drafts. On a connected (IMAP) inbox the ' +
    'remote folder is emptied first; when the server refuses, nothing changes here (502). Answers how many went.',
  ...needs('organise'),
  ...audited('email.empty_folder'),
  request: { query: EmptyFolderQuery },
  responses: {
    ...okResponse(envelope(EmptyFolderResult), 'How many emails left the folder, and where to'),
    ...commonErrors,
    ...remoteErrors,
  },
});

const label = createRoute({
  method: 'post',
  path: '/emails/{id}/labels',
  operationId: 'addEmailLabels',
  tags: ['Labels'],
  summary: 'Put labels (ids or names) on an email; labels it already has are kept once',
  ...needs('organise'),
  ...audited('email.label'),
  request: { params: UidParam, query: OrganiseBodyQuery, ...jsonBody(ApplyLabelsBody) },
  responses: { ...emailResponse, ...commonErrors },
});

const unlabel = createRoute({
  method: 'delete',
  path: '/emails/{id}/labels/{labelId}',
  operationId: 'removeEmailLabel',
  tags: ['Labels'],
  summary: 'Take a label off an email',
  ...needs('organise'),
  ...audited('email.unlabel'),
  request: { params: EmailLabelParams, query: OrganiseQuery },
  responses: { ...emailResponse, ...commonErrors },
});

export function registerEmailOrganiseRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(update, async (c) => {
    const ref = { ...c.req.valid('query'), account: c.var.account, uid: c.req.valid('param').id };
    const { account: _, ...change } = c.req.valid('json');
    return ok(c, { email: await updateEmail(c.var.deps, c.var.caller, ref, change) });
  });

  app.openapi(remove, async (c) => {
    const { permanent, ...where } = c.req.valid('query');
    const ref = { ...where, uid: c.req.valid('param').id };
    return ok(c, await deleteEmail(c.var.deps, c.var.caller, ref, { permanent }));
  });

  app.openapi(empty, async (c) => {
    const { permanent, ...where } = c.req.valid('query');
    return ok(c, await emptyFolder(c.var.deps, c.var.caller, where, { permanent }));
  });

  app.openapi(label, async (c) => {
    const ref = { ...c.req.valid('query'), account: c.var.account, uid: c.req.valid('param').id };
    return ok(c, { email: await applyLabels(c.var.deps, c.var.caller, ref, c.req.valid('json').labels) });
  });

  app.openapi(unlabel, async (c) => {
    const { id, labelId } = c.req.valid('param');
    const ref = { ...c.req.valid('query'), uid: id };
    return ok(c, { email: await removeLabel(c.var.deps, c.var.caller, ref, labelId) });
  });
}
