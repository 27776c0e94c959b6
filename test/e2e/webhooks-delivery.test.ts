import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Created {
  id: string;
  secret: string;
}

async function register(server: TestServer, url: string, extra: object = {}, key?: string): Promise<Created> {
  const res = await server.api('/webhooks', { key, body: { url, events: ['email.received'], ...extra } });
  expect(res.status).toBe(201);
  return res.json.data.webhook;
}

async function attempts(server: TestServer, id: string, key?: string) {
  const res = await server.api(`/webhooks/${id}/deliveries?limit=100`, { key });
  expect(res.status).toBe(200);
  return res.json.data.deliveries as {
    event_id: string;
    type: string;
    succeeded: boolean;
    status_code: number | null;
    error: string | null;
    delivery: { status: string; attempts: number };
  }[];
}

describe('webhook delivery', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    server = await startServer({ webhookRetryDelaysMs: new Array(30).fill(100), webhookTimeoutMs: 1000 });
  });
  afterAll(async () => server.stop());
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    // Nothing of one test keeps sending into the next.
    for (const w of (await server.api('/webhooks?limit=100')).json.data.webhooks) {
      await server.api(`/webhooks/${w.id}`, { method: 'DELETE' });
    }
    await receiver.close();
  });

  it('posts email.received signed per Standard Webhooks, with the Email in the payload', async () => {
    const webhook = await register(server, receiver.url);
    await server.sendMail({
      from: 'Alice <alice@example.com>',
      to: server.inbox,
      subject: 'Quarterly numbers',
      text: 'Revenue is up.',
      html: '<p>Revenue is <b>up</b>.</p>',
    });
    const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered);

    const verified = new Webhook(webhook.secret).verify(request!.body, request!.headers);
    expect(verified).toEqual(request!.json);
    expect(request!.headers['content-type']).toBe('application/json');
    const event = request!.json;
    expect(event.id).toMatch(/^evt_/);
    expect(request!.id).toBe(event.id);
    expect(event.type).toBe('email.received');
    expect(Date.parse(event.created_at)).not.toBeNaN();
    expect(event.data.account).toBe(server.inbox);
    expect(event.data.email).toMatchObject({
      uid: 1,
      from: 'alice@example.com',
      to: [server.inbox],
      subject: 'Quarterly numbers',
      folder: 'INBOX',
    });
    expect(event.data.email.text).toContain('Revenue is up.');
    expect(event.data.email.html).toContain('<b>up</b>');
    expect(event.data.email.messageId).toMatch(/^<.+>$/);

    // The signature is tied to the secret and the body.
    const other = new Webhook(Buffer.alloc(32, 7).toString('base64'));
    expect(() => other.verify(request!.body, request!.headers)).toThrow();
    expect(() => new Webhook(webhook.secret).verify(`${request!.body} `, request!.headers)).toThrow();

    // The attempt is recorded once the receiver has answered: the receiver can see it first.
    const log = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows.length > 0 && rows;
    });
    expect(log).toEqual([
      expect.objectContaining({
        event_id: event.id,
        type: 'email.received',
        succeeded: true,
        status_code: 200,
        error: null,
        delivery: expect.objectContaining({ status: 'succeeded', attempts: 1 }),
      }),
    ]);
  });

  it('retries a failing endpoint and delivers once it recovers', async () => {
    const webhook = await register(server, receiver.url);
    receiver.failNext(2, 503);
    await server.sendMail({ from: 'bob@example.com', to: server.inbox, subject: 'Retry me', text: 'x' });
    await eventually(() => receiver.delivered.length === 1);

    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
    for (const r of receiver.requests) new Webhook(webhook.secret).verify(r.body, r.headers);
    const log = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows.length === 3 && rows;
    });
    expect(log.map((a) => a.status_code)).toEqual([200, 503, 503]);
    expect(log.map((a) => a.succeeded)).toEqual([true, false, false]);
    expect(log[1]!.error).toBe('HTTP 503');
    expect(log[0]!.delivery).toMatchObject({ status: 'succeeded', attempts: 3 });
    const after = (await server.api(`/webhooks/${webhook.id}`)).json.data.webhook;
    expect(after).toMatchObject({ status: 'enabled', failing_since: null });
  });

  it('gives up after the last retry and marks the delivery failed', async () => {
    const quick = await startServer({ webhookRetryDelaysMs: [50, 50] });
    try {
      const webhook = await register(quick, receiver.url);
      receiver.answerAlways(500);
      await quick.sendMail({ from: 'bob@example.com', to: quick.inbox, subject: 'Doomed', text: 'x' });
      const log = await eventually(async () => {
        const rows = await attempts(quick, webhook.id);
        return rows[0]?.delivery.status === 'failed' && rows;
      });
      expect(log).toHaveLength(3);
      expect(receiver.requests).toHaveLength(3);
      const after = (await quick.api(`/webhooks/${webhook.id}`)).json.data.webhook;
      expect(after.status).toBe('enabled');
      expect(after.failing_since).toEqual(expect.any(String));
    } finally {
      await quick.stop();
    }
  });

  it('disables a webhook whose endpoint answers 410 Gone, and queues nothing more for it', async () => {
    const gone = await register(server, receiver.url);
    const sentinelReceiver = await WebhookReceiver.start();
    try {
      await register(server, sentinelReceiver.url);
      receiver.answerAlways(410);
      await server.sendMail({ from: 'c@example.com', to: server.inbox, subject: 'First', text: 'x' });
      const disabled = await eventually(async () => {
        const w = (await server.api(`/webhooks/${gone.id}`)).json.data.webhook;
        return w.status === 'disabled' && w;
      });
      expect(disabled.disabled_reason).toBe('gone');
      expect(receiver.requests).toHaveLength(1);

      await server.sendMail({ from: 'c@example.com', to: server.inbox, subject: 'Second', text: 'x' });
      await eventually(() => sentinelReceiver.delivered.some((r) => r.json.data.email.subject === 'Second'));
      expect(receiver.requests).toHaveLength(1);
      expect(await attempts(server, gone.id)).toHaveLength(1);
    } finally {
      await sentinelReceiver.close();
    }
  });

  it('gives up on a hanging endpoint at the timeout and retries', async () => {
    const webhook = await register(server, receiver.url);
    receiver.hang();
    await server.sendMail({ from: 'd@example.com', to: server.inbox, subject: 'Slow', text: 'x' });
    const [timedOut] = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows.length >= 1 && rows;
    });
    expect(timedOut).toMatchObject({ succeeded: false, status_code: null, error: 'timeout' });
    receiver.hang(false);
    await eventually(() => receiver.delivered.length === 1);
    expect(receiver.delivered[0]!.json.data.email.subject).toBe('Slow');
  });

  it('sends only the events subscribed to, for the inboxes chosen', async () => {
    const deps = server.mailroom.deps;
    const user = (await deps.store.users.find('default'))!;
    const side = await addLocalInbox(deps, 'side@mailroom.test', user.id);
    const narrow = await register(server, receiver.url, { accounts: [side.address] });
    const allReceiver = await WebhookReceiver.start();
    try {
      await register(server, allReceiver.url);
      await server.sendMail({ from: 'e@example.com', to: server.inbox, subject: 'Main', text: 'x' });
      await server.sendMail({ from: 'e@example.com', to: side.address, subject: 'Side', text: 'x' });
      await eventually(() => allReceiver.delivered.length === 2);
      await eventually(() => receiver.delivered.length === 1);
      expect(receiver.delivered[0]!.json.data).toMatchObject({
        account: 'side@mailroom.test',
        email: { subject: 'Side' },
      });
      // The attempt is recorded once the receiver has answered: the receiver can see it first.
      await eventually(async () => (await attempts(server, narrow.id)).length === 1);

      // A webhook for email.sent only hears nothing of arrivals.
      const sentOnly = await register(server, receiver.url, { events: ['email.sent'] });
      await server.sendMail({ from: 'e@example.com', to: server.inbox, subject: 'Third', text: 'x' });
      await eventually(() => allReceiver.delivered.length === 3);
      expect(await attempts(server, sentOnly.id)).toEqual([]);
    } finally {
      await allReceiver.close();
    }
  });

  it("never sends one user's events to another user's webhook", async () => {
    const other = await server.addUser('carol');
    const otherReceiver = await WebhookReceiver.start();
    try {
      const mine = await register(server, receiver.url);
      const theirs = await register(server, otherReceiver.url, {}, other.key);
      await server.sendMail({ from: 'f@example.com', to: server.inbox, subject: 'For me', text: 'x' });
      await server.sendMail({ from: 'f@example.com', to: other.inbox, subject: 'For carol', text: 'x' });
      await eventually(() => receiver.delivered.length === 1 && otherReceiver.delivered.length === 1);
      expect(receiver.delivered[0]!.json.data.account).toBe(server.inbox);
      expect(otherReceiver.delivered[0]!.json.data.account).toBe(other.inbox);
      expect(otherReceiver.requests.every((r) => r.json.data.account === other.inbox)).toBe(true);
      await eventually(async () => (await attempts(server, theirs.id, other.key)).length === 1);
      expect((await server.api(`/webhooks/${mine.id}/deliveries`, { key: other.key })).status).toBe(404);
    } finally {
      await otherReceiver.close();
    }
  });

  it('sends a test event on request, signed like any other', async () => {
    const webhook = await register(server, receiver.url);
    const res = await server.api(`/webhooks/${webhook.id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json.data.event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'webhook.test' });
    await eventually(() => receiver.delivered.length === 1);
    const request = receiver.delivered[0]!;
    expect(new Webhook(webhook.secret).verify(request.body, request.headers)).toMatchObject({
      id: res.json.data.event.id,
      type: 'webhook.test',
      data: { webhook: { id: webhook.id } },
    });
    // The attempt is written after the receiver has answered: wait for it.
    const log = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows.length > 0 ? rows : null;
    });
    expect(log[0]).toMatchObject({ event_id: res.json.data.event.id, type: 'webhook.test', succeeded: true });
  });

  it('signs with the new secret right after a rotation', async () => {
    const webhook = await register(server, receiver.url);
    const rotated = (await server.api(`/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' })).json.data
      .webhook;
    await server.sendMail({ from: 'g@example.com', to: server.inbox, subject: 'Rotated', text: 'x' });
    await eventually(() => receiver.delivered.length === 1);
    const request = receiver.delivered[0]!;
    expect(() => new Webhook(rotated.secret).verify(request.body, request.headers)).not.toThrow();
    expect(() => new Webhook(webhook.secret).verify(request.body, request.headers)).toThrow();
  });

  it('fails what was pending when the webhook is disabled, and delivers again once enabled', async () => {
    const webhook = await register(server, receiver.url);
    receiver.failWhen = (_, request) => (request.json.data.email.subject === 'Held' ? 500 : null);
    await server.sendMail({ from: 'h@example.com', to: server.inbox, subject: 'Held', text: 'x' });
    await eventually(() => receiver.requests.length >= 1);
    await server.api(`/webhooks/${webhook.id}`, { method: 'PATCH', body: { status: 'disabled' } });
    const log = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows[0]?.delivery.status === 'failed' && rows;
    });
    expect(log[0]!.delivery.status).toBe('failed');

    const enabled = await server.api(`/webhooks/${webhook.id}`, {
      method: 'PATCH',
      body: { status: 'enabled' },
    });
    expect(enabled.json.data.webhook).toMatchObject({ status: 'enabled', failing_since: null });
    await server.sendMail({ from: 'h@example.com', to: server.inbox, subject: 'After', text: 'x' });
    await eventually(() => receiver.delivered.some((r) => r.json.data.email.subject === 'After'));
    // Re-enabling does not bring back what was failed.
    const heldId = receiver.requests[0]!.id;
    // The attempt is recorded once the receiver has answered: the receiver can see it first.
    const after = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows[0]?.succeeded && rows;
    });
    expect(after.filter((a) => a.event_id === heldId).every((a) => a.delivery.status === 'failed')).toBe(
      true,
    );
    expect(after[0]).toMatchObject({ succeeded: true, delivery: { status: 'succeeded' } });
  });

  it('keeps undelivered events across a restart and delivers them afterwards', async () => {
    const webhook = await register(server, receiver.url);
    receiver.answerAlways(503);
    await server.sendMail({ from: 'i@example.com', to: server.inbox, subject: 'Survivor', text: 'x' });
    await eventually(() => receiver.requests.length >= 1);
    await receiver.down();

    await server.restart();
    await receiver.up();
    receiver.answerAlways(null);
    await eventually(() => receiver.delivered.length === 1);
    const request = receiver.delivered[0]!;
    expect(request.json.data.email.subject).toBe('Survivor');
    new Webhook(webhook.secret).verify(request.body, request.headers);
    expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
  });
});

describe('an endpoint failing for too long', () => {
  it('is disabled, with the reason shown', async () => {
    const server = await startServer({
      webhookRetryDelaysMs: new Array(50).fill(20),
      webhookDisableAfterFailingMs: 100,
    });
    const receiver = await WebhookReceiver.start();
    try {
      const webhook = await register(server, receiver.url);
      receiver.answerAlways(500);
      await server.sendMail({ from: 'j@example.com', to: server.inbox, subject: 'Never', text: 'x' });
      const disabled = await eventually(async () => {
        const w = (await server.api(`/webhooks/${webhook.id}`)).json.data.webhook;
        return w.status === 'disabled' && w;
      });
      expect(disabled.disabled_reason).toBe('failing');
      const log = await attempts(server, webhook.id);
      expect(log[0]!.delivery.status).toBe('failed');
    } finally {
      await receiver.close();
      await server.stop();
    }
  });
});
