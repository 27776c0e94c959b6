import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../mailbox/events/webhooks.js';
import { listDeliveries } from '../../mailbox/events/webhook-deliveries.js';
import type { AppEnv } from '../context.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';
import { ok } from '../envelope.js';
import { envelope } from '../../contract/common.js';
import {
  CreateWebhookBody,
  DeliveryAttempt,
  ListWebhooksQuery,
  TestEventResult,
  UpdateWebhookBody,
  Webhook,
  WebhookIdParam,
  WebhookWithSecret,
} from '../../contract/webhooks.js';
import { commonErrors, jsonBody, okResponse } from '../route-docs.js';

const tags = ['Webhooks'];

const create = createRoute({
  method: 'post',
  path: '/webhooks',
  operationId: 'createWebhook',
  tags,
  ...needs('manage'),
  ...audited('webhook.create'),
  summary: 'Register a webhook; the response holds its signing secret, shown only this once',
  request: jsonBody(CreateWebhookBody),
  responses: {
    201: {
      description: 'The webhook, with its secret',
      content: { 'application/json': { schema: envelope(z.object({ webhook: WebhookWithSecret })) } },
    },
    ...commonErrors,
  },
});

const list = createRoute({
  method: 'get',
  path: '/webhooks',
  operationId: 'listWebhooks',
  tags,
  ...needs('manage'),
  summary: 'Your webhooks, newest first',
  request: { query: ListWebhooksQuery },
  responses: {
    ...okResponse(
      envelope(z.object({ webhooks: z.array(Webhook), nextCursor: z.string().nullable() })),
      'A page of webhooks',
    ),
    ...commonErrors,
  },
});

const one = createRoute({
  method: 'get',
  path: '/webhooks/{id}',
  operationId: 'getWebhook',
  tags,
  ...needs('manage'),
  summary: 'One webhook (without its secret)',
  request: { params: WebhookIdParam },
  responses: { ...okResponse(envelope(z.object({ webhook: Webhook })), 'The webhook'), ...commonErrors },
});

const update = createRoute({
  method: 'patch',
  path: '/webhooks/{id}',
  operationId: 'updateWebhook',
  tags,
  ...needs('manage'),
  ...audited('webhook.update'),
  summary: 'Change url, events, accounts, description or status',
  request: { params: WebhookIdParam, ...jsonBody(UpdateWebhookBody) },
  // Spelled out rather than okResponse(): its `as const` trips the typing of async handlers.
  responses: {
    200: {
      description: 'The webhook',
      content: { 'application/json': { schema: envelope(z.object({ webhook: Webhook })) } },
    },
    ...commonErrors,
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags,
  ...needs('manage'),
  ...audited('webhook.delete'),
  summary: 'Delete a webhook; nothing more is delivered to it',
  request: { params: WebhookIdParam },
  responses: {
    ...okResponse(envelope(z.object({ id: z.string(), deleted: z.literal(true) })), 'Deleted'),
    ...commonErrors,
  },
});

const rotate = createRoute({
  method: 'post',
  path: '/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags,
  ...needs('manage'),
  ...audited('webhook.rotate_secret'),
  summary: 'Replace the signing secret; the new one is shown only in this response',
  request: { params: WebhookIdParam },
  responses: {
    ...okResponse(envelope(z.object({ webhook: WebhookWithSecret })), 'The webhook, with its new secret'),
    ...commonErrors,
  },
});

const test = createRoute({
  method: 'post',
  path: '/webhooks/{id}/test',
  operationId: 'testWebhook',
  tags,
  ...needs('manage'),
  ...audited('webhook.test'),
  summary: 'Send a webhook.test event to this webhook (one attempt; see its deliveries)',
  request: { params: WebhookIdParam },
  responses: {
    200: {
      description: 'The queued test event',
      content: { 'application/json': { schema: envelope(TestEventResult) } },
    },
    ...commonErrors,
  },
});

const deliveries = createRoute({
  method: 'get',
  path: '/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags,
  ...needs('manage'),
  summary: 'Recent delivery attempts, newest first',
  request: { params: WebhookIdParam, query: ListWebhooksQuery },
  responses: {
    ...okResponse(
      envelope(z.object({ deliveries: z.array(DeliveryAttempt), nextCursor: z.string().nullable() })),
      'A page of attempts',
    ),
    ...commonErrors,
  },
});

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(create, async (c) =>
    ok(c, { webhook: await createWebhook(c.var.deps, c.var.caller, c.req.valid('json')) }, 201),
  );

  app.openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    return ok(c, await listWebhooks(c.var.deps, c.var.caller, limit, cursor));
  });

  app.openapi(one, async (c) =>
    ok(c, { webhook: await getWebhook(c.var.deps, c.var.caller, c.req.valid('param').id) }),
  );

  app.openapi(update, async (c) => {
    const { id } = c.req.valid('param');
    return ok(c, { webhook: await updateWebhook(c.var.deps, c.var.caller, id, c.req.valid('json')) });
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await deleteWebhook(c.var.deps, c.var.caller, id);
    return ok(c, { id, deleted: true as const });
  });

  app.openapi(rotate, async (c) =>
    ok(c, { webhook: await rotateWebhookSecret(c.var.deps, c.var.caller, c.req.valid('param').id) }),
  );

  app.openapi(test, async (c) =>
    ok(c, await sendTestEvent(c.var.deps, c.var.caller, c.req.valid('param').id)),
  );

  app.openapi(deliveries, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    return ok(c, await listDeliveries(c.var.deps, c.var.caller, c.req.valid('param').id, limit, cursor));
  });
}
