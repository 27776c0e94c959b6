import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDispatcher } from '../../src/events/dispatcher.js';
import { createWebhook } from '../../src/mailbox/events/webhooks.js';
import { inProcessInbox, startDispatcher } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';
import { eventually } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const COUNT = 200;
/** Arrivals at once, as over the 10 SMTP connections of a pooled sender. */
const LANES = 10;

describe('a burst of arrivals', () => {
  let box: InProcess;
  let dispatcher: WebhookDispatcher;
  let steady: WebhookReceiver;
  let flaky: WebhookReceiver;

  beforeAll(async () => {
    box = await inProcessInbox('burst@mailroom.test');
    dispatcher = startDispatcher(box.deps, { retryDelaysMs: new Array(20).fill(50) });
    steady = await WebhookReceiver.start();
    flaky = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await steady?.close();
    await flaky?.close();
    await box?.close();
  });

  it(`delivers each of ${COUNT} events once to a healthy endpoint, and loses none to a flaky one`, async () => {
    const register = (url: string) => createWebhook(box.deps, box.who, { url, events: ['email.received'] });
    const steadyHook = await register(steady.url);
    await register(flaky.url);
    // Every third request fails: each failed event comes back on a retry.
    flaky.failWhen = (n) => (n % 3 === 0 ? 500 : null);

    let next = 0;
    const lane = async () => {
      for (let i = next++; i < COUNT; i = next++) {
        await box.deliver({
          from: 'burst@example.com',
          to: box.inbox.address,
          subject: `burst ${i}`,
          text: `message ${i}`,
        });
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));

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
