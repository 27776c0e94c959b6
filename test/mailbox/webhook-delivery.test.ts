import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DispatcherOptions, WebhookDispatcher } from '../../src/events/dispatcher.js';
import { NotFound } from '../../src/mailbox/errors.js';
import { listDeliveries } from '../../src/mailbox/events/webhook-deliveries.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../src/mailbox/events/webhooks.js';
import type { WebhookInput } from '../../src/mailbox/events/webhooks.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox, refusal, startDispatcher } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';
import { eventually } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// What the dispatcher does with the queue the verbs fill: signing, retries, giving up, disabling,
// whom an event reaches, and the attempt log. POST /webhooks and GET /webhooks/{id}/deliveries
// as HTTP (status codes, the answers' shape, the whole path from SMTP to a receiver) are
// test/e2e/webhooks-delivery.test.ts.
let box: InProcess;
let account: string;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher | null = null;

beforeAll(async () => {
  box = await inProcessInbox('hooked@mailroom.test');
  account = box.inbox.address;
});
afterAll(async () => box?.close());
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = null;
  // Nothing of one test keeps sending into the next.
  for (const w of (await listWebhooks(box.deps, box.who, 100)).webhooks)
    await deleteWebhook(box.deps, box.who, w.id);
  await receiver.close();
});

/** The dispatcher over this mailbox, with short waits unless said. */
function dispatch(options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
  dispatcher = startDispatcher(box.deps, {
    retryDelaysMs: new Array(30).fill(100),
    timeoutMs: 1000,
    ...options,
  });
  return dispatcher;
}

const register = (url: string, extra: Partial<WebhookInput> = {}, who: Who = box.who) =>
  createWebhook(box.deps, who, { url, events: ['email.received'], ...extra });
const attempts = async (id: string, who: Who = box.who) =>
  (await listDeliveries(box.deps, who, id, 100)).deliveries;
const arrive = (subject: string, to?: InboxRow) =>
  box.deliver(
    { from: 'bob@example.com', to: to?.address ?? account, subject, text: 'x' },
    to ? { to: [to] } : {},
  );

it('posts email.received signed per Standard Webhooks, with the Email in the payload, and logs the attempt', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  await box.deliver({
    from: 'Alice <alice@example.com>',
    to: account,
    subject: 'Quarterly numbers',
    text: 'Revenue is up.',
    html: '<p>Revenue is <b>up</b>.</p>',
  });
  const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered);

  expect(new Webhook(webhook.secret).verify(request!.body, request!.headers)).toEqual(request!.json);
  expect(request!.headers['content-type']).toBe('application/json');
  const event = request!.json;
  expect(event.id).toMatch(/^evt_/);
  expect(request!.id).toBe(event.id);
  expect(event.type).toBe('email.received');
  expect(Date.parse(event.created_at)).not.toBeNaN();
  expect(event.data.account).toBe(account);
  expect(event.data.email).toMatchObject({
    from: 'alice@example.com',
    to: [account],
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
    const rows = await attempts(webhook.id);
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
  dispatch();
  const webhook = await register(receiver.url);
  receiver.failNext(2, 503);
  await arrive('Retry me');
  await eventually(() => receiver.delivered.length === 1);

  expect(receiver.requests).toHaveLength(3);
  expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
  for (const r of receiver.requests) new Webhook(webhook.secret).verify(r.body, r.headers);
  const log = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows.length === 3 && rows;
  });
  expect(log.map((a) => a.status_code)).toEqual([200, 503, 503]);
  expect(log.map((a) => a.succeeded)).toEqual([true, false, false]);
  expect(log[1]!.error).toBe('HTTP 503');
  expect(log[0]!.delivery).toMatchObject({ status: 'succeeded', attempts: 3 });
  expect(await getWebhook(box.deps, box.who, webhook.id)).toMatchObject({
    status: 'enabled',
    failing_since: null,
  });
});

it('gives up after the last retry and marks the delivery failed', async () => {
  dispatch({ retryDelaysMs: [50, 50] });
  const webhook = await register(receiver.url);
  receiver.answerAlways(500);
  await arrive('Doomed');
  const log = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows[0]?.delivery.status === 'failed' && rows;
  });
  expect(log).toHaveLength(3);
  expect(receiver.requests).toHaveLength(3);
  const after = await getWebhook(box.deps, box.who, webhook.id);
  expect(after.status).toBe('enabled');
  expect(after.failing_since).toEqual(expect.any(String));
});

it('disables a webhook whose endpoint answers 410 Gone, and queues nothing more for it', async () => {
  dispatch();
  const gone = await register(receiver.url);
  const sentinel = await WebhookReceiver.start();
  try {
    await register(sentinel.url);
    receiver.answerAlways(410);
    await arrive('First');
    const disabled = await eventually(async () => {
      const w = await getWebhook(box.deps, box.who, gone.id);
      return w.status === 'disabled' && w;
    });
    expect(disabled.disabled_reason).toBe('gone');
    expect(receiver.requests).toHaveLength(1);

    await arrive('Second');
    await eventually(() => sentinel.delivered.some((r) => r.json.data.email.subject === 'Second'));
    expect(receiver.requests).toHaveLength(1);
    expect(await attempts(gone.id)).toHaveLength(1);
  } finally {
    await sentinel.close();
  }
});

it('gives up on a hanging endpoint at the timeout and retries', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  receiver.hang();
  await arrive('Slow');
  const [timedOut] = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows.length >= 1 && rows;
  });
  expect(timedOut).toMatchObject({ succeeded: false, status_code: null, error: 'timeout' });
  receiver.hang(false);
  await eventually(() => receiver.delivered.length === 1);
  expect(receiver.delivered[0]!.json.data.email.subject).toBe('Slow');
});

it('sends only the events subscribed to, for the inboxes chosen', async () => {
  dispatch();
  const { inbox: side } = await box.addInbox('side@mailroom.test', 'owner');
  const narrow = await register(receiver.url, { accounts: [side.address] });
  const everything = await WebhookReceiver.start();
  try {
    await register(everything.url);
    await arrive('Main');
    await arrive('Side', side);
    await eventually(() => everything.delivered.length === 2);
    await eventually(() => receiver.delivered.length === 1);
    expect(receiver.delivered[0]!.json.data).toMatchObject({
      account: 'side@mailroom.test',
      email: { subject: 'Side' },
    });
    await eventually(async () => (await attempts(narrow.id)).length === 1);

    // A webhook for email.sent only hears nothing of arrivals.
    const sentOnly = await register(receiver.url, { events: ['email.sent'] });
    await arrive('Third');
    await eventually(() => everything.delivered.length === 3);
    expect(await attempts(sentOnly.id)).toEqual([]);
  } finally {
    await everything.close();
  }
});

it("never sends one user's events to another user's webhook", async () => {
  dispatch();
  const carol = await box.addInbox('carol@mailroom.test', 'carol');
  const theirReceiver = await WebhookReceiver.start();
  const theirs = await register(theirReceiver.url, {}, carol.who);
  try {
    const mine = await register(receiver.url);
    await arrive('For me');
    await arrive('For carol', carol.inbox);
    await eventually(() => receiver.delivered.length === 1 && theirReceiver.delivered.length === 1);
    expect(receiver.delivered[0]!.json.data.account).toBe(account);
    expect(theirReceiver.delivered[0]!.json.data.account).toBe(carol.inbox.address);
    expect(theirReceiver.requests.every((r) => r.json.data.account === carol.inbox.address)).toBe(true);
    await eventually(async () => (await attempts(theirs.id, carol.who)).length === 1);
    expect(await refusal(attempts(mine.id, carol.who))).toBeInstanceOf(NotFound);
  } finally {
    await deleteWebhook(box.deps, carol.who, theirs.id);
    await theirReceiver.close();
  }
});

it('sends a test event on request, signed like any other, and logs its one attempt', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  const sent = await sendTestEvent(box.deps, box.who, webhook.id);
  expect(sent.event).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'webhook.test' });
  await eventually(() => receiver.delivered.length === 1);
  const request = receiver.delivered[0]!;
  expect(new Webhook(webhook.secret).verify(request.body, request.headers)).toMatchObject({
    id: sent.event.id,
    type: 'webhook.test',
    data: { webhook: { id: webhook.id } },
  });
  const log = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows.length > 0 ? rows : null;
  });
  expect(log[0]).toMatchObject({ event_id: sent.event.id, type: 'webhook.test', succeeded: true });
});

it('signs with the new secret right after a rotation', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  const rotated = await rotateWebhookSecret(box.deps, box.who, webhook.id);
  await arrive('Rotated');
  await eventually(() => receiver.delivered.length === 1);
  const request = receiver.delivered[0]!;
  expect(() => new Webhook(rotated.secret).verify(request.body, request.headers)).not.toThrow();
  expect(() => new Webhook(webhook.secret).verify(request.body, request.headers)).toThrow();
});

it('fails what was pending when the webhook is disabled, and delivers again once enabled', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  receiver.failWhen = (_, request) => (request.json.data.email.subject === 'Held' ? 500 : null);
  await arrive('Held');
  await eventually(() => receiver.requests.length >= 1);
  await updateWebhook(box.deps, box.who, webhook.id, { status: 'disabled' });
  const log = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows[0]?.delivery.status === 'failed' && rows;
  });
  expect(log[0]!.delivery.status).toBe('failed');

  const enabled = await updateWebhook(box.deps, box.who, webhook.id, { status: 'enabled' });
  expect(enabled).toMatchObject({ status: 'enabled', failing_since: null });
  await arrive('After');
  await eventually(() => receiver.delivered.some((r) => r.json.data.email.subject === 'After'));
  // Re-enabling does not bring back what was failed.
  const heldId = receiver.requests[0]!.id;
  const after = await eventually(async () => {
    const rows = await attempts(webhook.id);
    return rows[0]?.succeeded && rows;
  });
  expect(after.filter((a) => a.event_id === heldId).every((a) => a.delivery.status === 'failed')).toBe(true);
  expect(after[0]).toMatchObject({ succeeded: true, delivery: { status: 'succeeded' } });
});

it('keeps undelivered events in the queue for the next dispatcher (a restart) and delivers them', async () => {
  dispatch();
  const webhook = await register(receiver.url);
  receiver.answerAlways(503);
  await arrive('Survivor');
  await eventually(() => receiver.requests.length >= 1);
  await receiver.down();
  await dispatcher!.stop();

  await receiver.up();
  receiver.answerAlways(null);
  dispatch();
  await eventually(() => receiver.delivered.length === 1);
  const request = receiver.delivered[0]!;
  expect(request.json.data.email.subject).toBe('Survivor');
  new Webhook(webhook.secret).verify(request.body, request.headers);
  expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
});

describe('an endpoint failing for too long', () => {
  it('is disabled, with the reason shown', async () => {
    dispatch({ retryDelaysMs: new Array(50).fill(20), disableAfterFailingMs: 100 });
    const webhook = await register(receiver.url);
    receiver.answerAlways(500);
    await arrive('Never');
    const disabled = await eventually(async () => {
      const w = await getWebhook(box.deps, box.who, webhook.id);
      return w.status === 'disabled' && w;
    });
    expect(disabled.disabled_reason).toBe('failing');
    expect((await attempts(webhook.id))[0]!.delivery.status).toBe('failed');
  });
});

it('leaves the deliveries of events another node committed to that node, reading the queue for its own', async () => {
  await register(receiver.url);
  await arrive('Committed elsewhere');
  // As the event tail publishes a row another node or process committed: its deliveries unknown here.
  const [foreign] = (await box.deps.store.events.after(0, 10_000)).slice(-1);
  const queue = box.deps.store.webhookDeliveries;
  const [due, nextDueAt] = [queue.due.bind(queue), queue.nextDueAt.bind(queue)];
  let reads = 0;
  let passesEnded = 0;
  queue.due = (...args) => (reads++, due(...args));
  queue.nextDueAt = () => nextDueAt().finally(() => passesEnded++);
  try {
    // An hour between polls: only a wake reads the queue. Its first pass at start posts the mail's
    // delivery, whose end wakes it for one more.
    dispatch({ pollMs: 3_600_000 });
    await eventually(() => receiver.delivered.length === 1 && passesEnded === reads && reads >= 2);
    const before = reads;
    box.deps.bus.publish([foreign!]);
    // A wake reads the queue on the next turn of the event loop.
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(reads, 'queue reads after a row another node committed').toBe(before);
    // A row this process committed, which queued a delivery, wakes it.
    box.deps.bus.publish([{ ...foreign!, webhookDeliveries: 1 }]);
    await eventually(() => reads === before + 1 && passesEnded === reads);
  } finally {
    queue.due = due;
    queue.nextDueAt = nextDueAt;
  }
});
