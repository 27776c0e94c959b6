// Engines: SQLite only: which webhook URLs are refused (private addresses), a door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// Contract 7: without MAILROOM_WEBHOOK_ALLOW_PRIVATE, a server that listens on loopback only
// may post to loopback (a receiver on the same machine); other private networks, and loopback
// on a server others can reach, are refused with a message naming the setting.
describe('webhooks to a receiver on this machine', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  const SETTING = /MAILROOM_WEBHOOK_ALLOW_PRIVATE=true/;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    server = await startServer({ webhookAllowPrivate: false, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const create = (url: string) => server.api('/webhooks', { body: { url, events: ['email.received'] } });
  const errorOf = (res: { json: { error: { details: { message: string }[] } } }) =>
    res.json.error.details[0]!.message;

  it('on a server bound to 127.0.0.1, accepts a loopback receiver and delivers to it, setting unset', async () => {
    const created = await create(receiver.url);
    expect(created.status, created.text).toBe(201);
    const byName = await create(receiver.url.replace('127.0.0.1', 'localhost'));
    expect(byName.status, byName.text).toBe(201);
    await server.api(`/webhooks/${byName.json.data.webhook.id}`, { method: 'DELETE' });

    await server.sendMail({
      from: 'ann@example.com',
      to: server.inbox,
      subject: 'to the local hook',
      text: 'hi',
    });
    const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered, 30_000);
    expect(request!.json.data.email.subject).toBe('to the local hook');
  });

  it('still refuses other private networks there, naming the setting', async () => {
    for (const url of ['http://10.1.2.3/hook', 'http://192.168.1.20/hook', 'http://169.254.169.254/']) {
      const res = await create(url);
      expect(res.status, url).toBe(400);
      expect(errorOf(res), url).toMatch(SETTING);
    }
  });

  it('on a server bound to 0.0.0.0, refuses loopback at creation and at delivery, naming the setting', async () => {
    const hook = (await server.api('/webhooks')).json.data.webhooks[0];
    const before = receiver.requests.length;
    await server.restart(undefined, { host: '0.0.0.0' });

    const res = await create(receiver.url);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatch(SETTING);

    // The one made while the server listened on loopback only is refused when it connects.
    expect((await server.api(`/webhooks/${hook.id}/test`, { method: 'POST' })).status).toBe(200);
    const attempt = await eventually(async () => {
      const list = (await server.api(`/webhooks/${hook.id}/deliveries`)).json.data.deliveries;
      return list.find((d: { type: string }) => d.type === 'webhook.test');
    }, 30_000);
    expect(attempt.succeeded).toBe(false);
    expect(attempt.error).toMatch(SETTING);
    expect(receiver.requests.length).toBe(before);
  });
});
