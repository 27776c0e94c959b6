import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const COUNT = 500;

describe('a burst of arrivals', () => {
  let server: TestServer;
  let steady: WebhookReceiver;
  let flaky: WebhookReceiver;

  beforeAll(async () => {
    server = await startServer({ webhookRetryDelaysMs: new Array(20).fill(50) });
    steady = await WebhookReceiver.start();
    flaky = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await steady.close();
    await flaky.close();
    await server.stop();
  });

  it(`delivers each of ${COUNT} events once to a healthy endpoint, and loses none to a flaky one`, async () => {
    const register = async (url: string) =>
      (await server.api('/webhooks', { body: { url, events: ['email.received'] } })).json.data.webhook;
    const steadyHook = await register(steady.url);
    await register(flaky.url);
    // Every third request fails: each failed event comes back on a retry.
    flaky.failWhen = (n) => (n % 3 === 0 ? 500 : null);

    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: server.mailroom.smtp.port,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 10,
      maxMessages: Infinity,
    });
    try {
      await Promise.all(
        Array.from({ length: COUNT }, (_, i) =>
          transport.sendMail({
            from: 'burst@example.com',
            to: server.inbox,
            subject: `burst ${i}`,
            text: `message ${i}`,
          }),
        ),
      );
    } finally {
      transport.close();
    }

    await eventually(() => steady.distinctDelivered().size === COUNT, 240_000);
    await eventually(() => flaky.distinctDelivered().size === COUNT, 240_000);

    // Exactly once to the healthy endpoint: as many requests as distinct ids.
    expect(steady.requests).toHaveLength(COUNT);
    const subjects = new Set(steady.requests.map((r) => r.json.data.email.subject));
    expect(subjects.size).toBe(COUNT);
    for (const r of steady.requests.slice(0, 20)) new Webhook(steadyHook.secret).verify(r.body, r.headers);

    // The flaky endpoint saw retries, each success exactly once per event.
    expect(flaky.requests.length).toBeGreaterThan(COUNT);
    expect(flaky.delivered).toHaveLength(COUNT);
    expect(new Set(flaky.requests.map((r) => r.id))).toEqual(steady.distinctDelivered());
  }, 600_000);
});
