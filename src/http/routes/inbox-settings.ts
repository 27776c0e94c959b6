import { createRoute, z } from '@hono/zod-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { getInboxSettings, updateInboxSettings } from '../../mailbox/limits/inbox-settings.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { envelope } from '../../contract/common.js';
import { InboxSettings, SettingsParams, UpdateInboxSettingsBody } from '../../contract/settings.js';
import { commonErrors, jsonBody } from '../route-docs.js';
import { needs } from '../route-permission.js';
import { audited } from '../route-audit.js';

const tags = ['Accounts'];
// Spelled out rather than okResponse(): its `as const` trips the typing of async handlers.
const settingsResponse = {
  200: {
    description: "The inbox's settings and the recipients it sent to lately",
    content: { 'application/json': { schema: envelope(z.object({ settings: InboxSettings })) } },
  },
};

const read = createRoute({
  method: 'get',
  path: '/accounts/{address}/settings',
  operationId: 'getInboxSettings',
  tags,
  ...needs('read'),
  summary: "An inbox's settings: mode, paused, send limits and the counts sent (needs read)",
  request: { params: SettingsParams },
  responses: { ...settingsResponse, ...commonErrors },
});

const update = createRoute({
  method: 'patch',
  path: '/accounts/{address}/settings',
  operationId: 'updateInboxSettings',
  tags,
  ...needs('manage'),
  ...audited('settings.update', 'address'),
  summary: "Change an inbox's mode, pause, or send limits (needs manage)",
  request: { params: SettingsParams, ...jsonBody(UpdateInboxSettingsBody) },
  responses: { ...settingsResponse, ...commonErrors },
});

export function registerInboxSettingsRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(read, async (c) => {
    const { caller } = c.var;
    return ok(c, { settings: await getInboxSettings(c.var.deps, caller, c.req.valid('param').address) });
  });
  app.openapi(update, async (c) => {
    const { caller } = c.var;
    const { address } = c.req.valid('param');
    return ok(c, { settings: await updateInboxSettings(c.var.deps, caller, address, c.req.valid('json')) });
  });
}
