// Engines: SQLite only: webhook delivery through the server (an SMTP arrival reaching a receiver, GET /webhooks/{id}/deliveries and POST /webhooks/{id}/test as HTTP, the dispatcher across a restart); what the dispatcher does with the queue (signing, retries, giving up, 410, timeouts, whom an event reaches, disabling) is test/mailbox/webhook-delivery.test.ts, on both engines.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Created {
  id: string;
  secret: string;
}

async function register(server: TestServer, url: string, key?: string): Promise<Created> {
  const res = await server.api('/webhooks', { key, body: { url, events: ['email.received'] } });
  expect(res.status).toBe(201);
  return res.json.data.webhook;
}

async function attempts(server: TestServer, id: string, key?: string) {
  const res = await server.api(`/webhooks/${id}/deliveries?limit=100`, { key });
  expect(res.status).toBe(200);
  return res.json.data.deliveries as Record<string, unknown>[];
}

describe('webhook delivery through the server', () => {
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
    for (const w of (await server.api('/webhooks?limit=100')).json.data.webhooks) {
      await server.api(`/webhooks/${w.id}`, { method: 'DELETE' });
    }
    await receiver.close();
  });

  it('posts mail that arrived over SMTP, signed, and GET /webhooks/{id}/deliveries shows the attempt', async () => {
    const webhook = await register(server, receiver.url);
    await server.sendMail({
      from: 'alice@example.com',
      to: server.inbox,
      subject: 'Quarterly numbers',
      text: 'Up.',
    });
    const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered);
    const event = new Webhook(webhook.secret).verify(request!.body, request!.headers) as {
      id: string;
      data: { account: string; email: { uid: number; subject: string } };
    };
    expect(event.data).toMatchObject({
      account: server.inbox,
      email: { uid: 1, subject: 'Quarterly numbers' },
    });

    // The attempt is recorded once the receiver has answered: the receiver can see it first.
    const [attempt] = await eventually(async () => {
      const rows = await attempts(server, webhook.id);
      return rows.length > 0 && rows;
    });
    expect(attempt).toEqual({
      id: expect.any(Number),
      event_id: event.id,
      type: 'email.received',
      succeeded: true,
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
      attempted_at: expect.any(String),
      delivery: { id: expect.any(Number), status: 'succeeded', attempts: 1, next_attempt_at: null },
    });
  });

  it("answers 404 for another user's webhook's deliveries", async () => {
    const other = await server.addUser('carol');
    const mine = await register(server, receiver.url);
    const res = await server.api(`/webhooks/${mine.id}/deliveries`, { key: other.key });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
  });

  it('sends a test event on POST /webhooks/{id}/test, answering the event and its pending delivery', async () => {
    const webhook = await register(server, receiver.url);
    const res = await server.api(`/webhooks/${webhook.id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      event: { id: expect.stringMatching(/^evt_/), type: 'webhook.test', created_at: expect.any(String) },
      delivery: { id: expect.any(Number), status: 'pending' },
    });
    await eventually(() => receiver.delivered.length === 1);
    expect(receiver.delivered[0]!.id).toBe(res.json.data.event.id);
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
