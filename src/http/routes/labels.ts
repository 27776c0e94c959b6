import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import {
  createLabel,
  deleteLabel,
  getLabel,
  listLabels,
  updateLabel,
} from '../../mailbox/organising/labels.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { ErrorResponse, envelope } from '../../contract/common.js';
import {
  CreateLabelBody,
  Label,
  LabelIdParam,
  ListLabelsQuery,
  UpdateLabelBody,
} from '../../contract/labels.js';
import { commonErrors, jsonBody, okResponse } from '../route-docs.js';

const conflict = {
  409: {
    description: 'A label with this name exists (names compare case-insensitively)',
    content: { 'application/json': { schema: ErrorResponse } },
  },
} as const;

const labelResponse = okResponse(envelope(z.object({ label: Label })), 'The label');

const create = createRoute({
  method: 'post',
  path: '/labels',
  operationId: 'createLabel',
  tags: ['Labels'],
  summary: 'Create a label; a palette colour is picked at random when color is omitted',
  ...needs('organise'),
  ...audited('label.create'),
  request: jsonBody(CreateLabelBody),
  responses: {
    201: {
      description: 'The label',
      content: { 'application/json': { schema: envelope(z.object({ label: Label }), true) } },
    },
    ...commonErrors,
    ...conflict,
  },
});

const list = createRoute({
  method: 'get',
  path: '/labels',
  operationId: 'listLabels',
  tags: ['Labels'],
  summary: 'Your labels, newest first',
  ...needs('read'),
  request: { query: ListLabelsQuery },
  responses: {
    ...okResponse(
      envelope(z.object({ labels: z.array(Label), nextCursor: z.string().nullable() })),
      'A page of labels',
    ),
    ...commonErrors,
  },
});

const one = createRoute({
  method: 'get',
  path: '/labels/{id}',
  operationId: 'getLabel',
  tags: ['Labels'],
  summary: 'One label',
  ...needs('read'),
  request: { params: LabelIdParam },
  responses: { ...labelResponse, ...commonErrors },
});

const update = createRoute({
  method: 'patch',
  path: '/labels/{id}',
  operationId: 'updateLabel',
  tags: ['Labels'],
  summary: 'Change a label: the fields given replace, the others stay (description null clears it)',
  ...needs('organise'),
  ...audited('label.update'),
  request: { params: LabelIdParam, ...jsonBody(UpdateLabelBody) },
  responses: { ...labelResponse, ...commonErrors, ...conflict },
});

const remove = createRoute({
  method: 'delete',
  path: '/labels/{id}',
  operationId: 'deleteLabel',
  tags: ['Labels'],
  summary: 'Delete a label; it comes off every email that carried it',
  ...needs('organise'),
  ...audited('label.delete'),
  request: { params: LabelIdParam },
  responses: {
    ...okResponse(envelope(z.object({ id: z.string(), deleted: z.literal(true) })), 'Deleted'),
    ...commonErrors,
  },
});

export function registerLabelRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(create, async (c) => {
    const label = await createLabel(c.var.deps, c.var.caller, c.req.valid('json'));
    return ok(c, { label }, 201, 'Label created successfully');
  });

  app.openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    return ok(c, await listLabels(c.var.deps, c.var.caller, limit, cursor));
  });

  app.openapi(one, async (c) =>
    ok(c, { label: await getLabel(c.var.deps, c.var.caller, c.req.valid('param').id) }),
  );

  app.openapi(update, async (c) => {
    const label = await updateLabel(c.var.deps, c.var.caller, c.req.valid('param').id, c.req.valid('json'));
    return ok(c, { label });
  });

  app.openapi(remove, async (c) => {
    const { id } = await deleteLabel(c.var.deps, c.var.caller, c.req.valid('param').id);
    return ok(c, { id, deleted: true as const });
  });
}
