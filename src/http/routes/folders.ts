import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createFolder, deleteFolder } from '../../mailbox/organising/folders.js';
import { listFolders } from '../../mailbox/reading/read.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { AccountQuery, EitherAccountQuery, ErrorResponse, envelope } from '../../contract/common.js';
import { Folder } from '../../contract/emails.js';
import { CreateFolderBody, DeleteFolderResult, FolderNameParam } from '../../contract/organise.js';
import { commonErrors, jsonBody, okResponse } from '../route-docs.js';

const list = createRoute({
  method: 'get',
  path: '/folders',
  operationId: 'listFolders',
  tags: ['Folders'],
  summary: 'Folders of an inbox with total and unread counts',
  ...needs('read'),
  request: { query: AccountQuery },
  responses: {
    ...okResponse(envelope(z.object({ folders: z.array(Folder) })), 'The folders'),
    ...commonErrors,
  },
});

const create = createRoute({
  method: 'post',
  path: '/folders',
  operationId: 'createFolder',
  tags: ['Folders'],
  summary: 'Create a custom folder',
  description:
    'Names are 1 to 100 characters without "/", not only dots ("." or ".."), trimmed, and unique ' +
    'per inbox whatever their case.',
  ...needs('organise'),
  ...audited('folder.create'),
  request: { query: EitherAccountQuery, ...jsonBody(CreateFolderBody) },
  responses: {
    201: {
      description: 'The new folder',
      content: { 'application/json': { schema: envelope(z.object({ folder: Folder })) } },
    },
    ...commonErrors,
    409: {
      description: 'A folder with this name exists',
      content: { 'application/json': { schema: ErrorResponse } },
    },
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/folders/{name}',
  operationId: 'deleteFolder',
  tags: ['Folders'],
  summary: 'Delete a custom folder; the mail it holds moves to Trash',
  description:
    'Standard folders (INBOX, Sent, Drafts, Trash, Spam, Outbox) cannot be deleted (400). The name is ' +
    'trimmed, so a folder named ".." from an older version is reached as `%20..`.',
  ...needs('organise'),
  ...audited('folder.delete'),
  request: { params: FolderNameParam, query: AccountQuery },
  responses: { ...okResponse(envelope(DeleteFolderResult), 'Deleted'), ...commonErrors },
});

export function registerFolderRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) =>
    ok(c, { folders: await listFolders(c.var.deps, c.var.caller, c.req.valid('query').account) }),
  );

  app.openapi(create, async (c) => {
    const { name } = c.req.valid('json');
    return ok(c, { folder: await createFolder(c.var.deps, c.var.caller, c.var.account, name) }, 201);
  });

  app.openapi(remove, async (c) => {
    const { account } = c.req.valid('query');
    return ok(c, await deleteFolder(c.var.deps, c.var.caller, account, c.req.valid('param').name));
  });
}
