// Engines: SQLite only: the /webhooks routes as HTTP (the body's validation, status codes, the answers' shape, a key required, the OpenAPI document); what the webhook verbs keep and answer (secrets, kinds, inboxes, updates, another user's webhook, paging, private URLs) is test/mailbox/webhooks.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const hook = (url = 'https://93.184.215.14/hooks/mail') => ({
  url,
  events: ['email.received'],
  description: 'my agent',
});

describe('webhook registration', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Private targets refused, as a server's default: a URL out of reach is a 400 on url.
    server = await startServer({ webhookAllowPrivate: false });
  });
  afterAll(async () => server.stop());

  it('creates a webhook and shows its secret only once', async () => {
    const res = await server.api('/webhooks', { body: hook() });
    expect(res.status).toBe(201);
    expect(res.json.success).toBe(true);
    const webhook = res.json.data.webhook;
    expect(webhook).toMatchObject({
      url: 'https://93.184.215.14/hooks/mail',
      events: ['email.received'],
      accounts: null,
      description: 'my agent',
      status: 'enabled',
    });
    expect(webhook.id).toMatch(/^wh_/);
    expect(Date.parse(webhook.created_at)).not.toBeNaN();
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(webhook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const one = await server.api(`/webhooks/${webhook.id}`);
    expect(one.status).toBe(200);
    expect(one.json.data.webhook.id).toBe(webhook.id);
    expect(one.json.data.webhook).not.toHaveProperty('secret');
    const list = await server.api('/webhooks');
    expect(list.json.data.webhooks.map((w: { id: string }) => w.id)).toContain(webhook.id);
    expect(JSON.stringify(list.json)).not.toContain(webhook.secret);
  });

  it('validates the body: url, events, description', async () => {
    const missingUrl = await server.api('/webhooks', {
      body: { events: ['email.received'] },
    });
    expect(missingUrl.status).toBe(400);
    expect(missingUrl.json.error.code).toBe('validation_error');
    expect(missingUrl.json.error.details[0].path).toBe('url');

    const unknownKind = await server.api('/webhooks', {
      body: { url: hook().url, events: ['email.received', 'email.exploded'] },
    });
    expect(unknownKind.status).toBe(400);
    expect(unknownKind.json.error.details[0].path).toBe('events.1');

    const noKinds = await server.api('/webhooks', {
      body: { url: hook().url, events: [] },
    });
    expect(noKinds.status).toBe(400);
    expect(noKinds.json.error.details[0].path).toBe('events');

    const longDescription = await server.api('/webhooks', {
      body: { ...hook(), description: 'x'.repeat(501) },
    });
    expect(longDescription.status).toBe(400);
  });

  it('answers 403 for an inbox not yours, 400 for none, and accounts as addresses', async () => {
    const other = await server.addUser('mallory');
    const mine = await server.api('/webhooks', {
      body: { ...hook(), accounts: [server.inbox] },
    });
    expect(mine.status).toBe(201);
    expect(mine.json.data.webhook.accounts).toEqual([server.inbox]);
    const theirs = await server.api('/webhooks', {
      body: { ...hook(), accounts: [other.inbox] },
    });
    expect(theirs.status).toBe(403);
    expect(theirs.json.error.code).toBe('forbidden');
    const empty = await server.api('/webhooks', {
      body: { ...hook(), accounts: [] },
    });
    expect(empty.status).toBe(400);
    expect(empty.json.error.details[0].path).toBe('accounts');
    const widened = await server.api(`/webhooks/${mine.json.data.webhook.id}`, {
      method: 'PATCH',
      body: { accounts: null },
    });
    expect(widened.json.data.webhook.accounts).toBeNull();
  });

  it('updates url, events, description and status', async () => {
    const { id } = (await server.api('/webhooks', { body: hook() })).json.data.webhook;
    const res = await server.api(`/webhooks/${id}`, {
      method: 'PATCH',
      body: {
        url: 'https://93.184.215.14/v2',
        events: ['email.sent'],
        description: null,
        status: 'disabled',
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.data.webhook).toMatchObject({
      id,
      url: 'https://93.184.215.14/v2',
      events: ['email.sent'],
      description: null,
      status: 'disabled',
      disabled_reason: 'user',
    });
    expect(res.json.data.webhook).not.toHaveProperty('secret');

    const enabled = await server.api(`/webhooks/${id}`, {
      method: 'PATCH',
      body: { status: 'enabled' },
    });
    expect(enabled.json.data.webhook).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
    });

    const nothing = await server.api(`/webhooks/${id}`, {
      method: 'PATCH',
      body: {},
    });
    expect(nothing.status).toBe(400);
    const badStatus = await server.api(`/webhooks/${id}`, {
      method: 'PATCH',
      body: { status: 'paused' },
    });
    expect(badStatus.status).toBe(400);
    expect(badStatus.json.error.details[0].path).toBe('status');
  });

  it('rotates the secret: a new one, shown once', async () => {
    const created = (await server.api('/webhooks', { body: hook() })).json.data.webhook;
    const rotated = await server.api(`/webhooks/${created.id}/rotate-secret`, {
      method: 'POST',
    });
    expect(rotated.status).toBe(200);
    expect(rotated.json.data.webhook.id).toBe(created.id);
    expect(rotated.json.data.webhook.secret).toMatch(/^whsec_/);
    expect(rotated.json.data.webhook.secret).not.toBe(created.secret);
    const after = await server.api(`/webhooks/${created.id}`);
    expect(after.json.data.webhook).not.toHaveProperty('secret');
  });

  it('deletes a webhook', async () => {
    const { id } = (await server.api('/webhooks', { body: hook() })).json.data.webhook;
    const res = await server.api(`/webhooks/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ id, deleted: true });
    expect((await server.api(`/webhooks/${id}`)).status).toBe(404);
    expect((await server.api(`/webhooks/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it("answers 404 for another user's webhook, whatever the operation", async () => {
    const { id } = (await server.api('/webhooks', { body: hook() })).json.data.webhook;
    const other = await server.addUser('eve');
    const as = { key: other.key };
    expect((await server.api(`/webhooks/${id}`, as)).status).toBe(404);
    expect(
      (
        await server.api(`/webhooks/${id}`, {
          ...as,
          method: 'PATCH',
          body: { description: 'x' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await server.api(`/webhooks/${id}/rotate-secret`, {
          ...as,
          method: 'POST',
        })
      ).status,
    ).toBe(404);
    expect((await server.api(`/webhooks/${id}/test`, { ...as, method: 'POST' })).status).toBe(404);
    expect((await server.api(`/webhooks/${id}/deliveries`, as)).status).toBe(404);
    expect((await server.api(`/webhooks/${id}`, { ...as, method: 'DELETE' })).status).toBe(404);
    expect((await server.api('/webhooks', as)).json.data.webhooks).toEqual([]);
    // Still there for its owner.
    expect((await server.api(`/webhooks/${id}`)).status).toBe(200);
  });

  it('pages the list newest first', async () => {
    const other = await server.addUser('pager');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await server.api('/webhooks', { key: other.key, body: hook() })).json.data.webhook.id);
    }
    const first = await server.api('/webhooks?limit=2', { key: other.key });
    expect(first.json.data.webhooks.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.data.nextCursor).toEqual(expect.any(String));
    const second = await server.api(`/webhooks?limit=2&cursor=${first.json.data.nextCursor}`, {
      key: other.key,
    });
    expect(second.json.data.webhooks.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
    expect(second.json.data.nextCursor).toBeNull();
  });

  it('requires an API key', async () => {
    expect((await server.api('/webhooks', { key: null })).status).toBe(401);
    expect((await server.api('/webhooks', { key: null, body: hook() })).status).toBe(401);
  });

  it('documents the routes in the OpenAPI document', async () => {
    const doc = (await server.api('/api/v1/openapi.json', { key: null })).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/webhooks',
        '/webhooks/{id}',
        '/webhooks/{id}/rotate-secret',
        '/webhooks/{id}/test',
        '/webhooks/{id}/deliveries',
        '/events',
      ]),
    );
  });

  it('answers 400 on url for a private target, at creation and when changing it', async () => {
    const res = await server.api('/webhooks', {
      body: { url: 'http://10.1.2.3/hook', events: ['email.received'] },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    expect(res.json.error.details).toEqual([
      {
        path: 'url',
        message: expect.stringContaining('MAILROOM_WEBHOOK_ALLOW_PRIVATE'),
      },
    ]);
    const { id } = (await server.api('/webhooks', { body: hook() })).json.data.webhook;
    const patched = await server.api(`/webhooks/${id}`, {
      method: 'PATCH',
      body: { url: 'http://10.0.0.1/' },
    });
    expect(patched.status).toBe(400);
    expect(patched.json.error.details[0].path).toBe('url');
  });
});
