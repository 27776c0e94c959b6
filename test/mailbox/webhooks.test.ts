import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Forbidden, NotFound, ValidationFailed } from '../../src/mailbox/errors.js';
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
import { inProcessInbox, refusal } from '../helpers/in-process.js';
import type { InProcess, Who } from '../helpers/in-process.js';

// What the webhook verbs keep and answer. The routes' validation, status codes and answers
// (and the OpenAPI document) are test/e2e/webhooks.test.ts.
const hook = (url = 'https://93.184.215.14/hooks/mail'): WebhookInput => ({
  url,
  events: ['email.received'],
  description: 'my agent',
});

describe('webhook registration', () => {
  let box: InProcess;
  let mallory: { address: string; who: Who };
  beforeAll(async () => {
    box = await inProcessInbox('hooks@mailroom.test');
    const other = await box.addInbox('mallory@mailroom.test', 'mallory');
    mallory = { address: other.inbox.address, who: other.who };
  });
  afterAll(async () => box?.close());
  const create = (input: Partial<WebhookInput> = {}, who = box.who) =>
    createWebhook(box.deps, who, { ...hook(), ...input });

  it('creates a webhook and shows its secret only once', async () => {
    const webhook = await create();
    expect(webhook).toMatchObject({
      url: 'https://93.184.215.14/hooks/mail',
      events: ['email.received'],
      accounts: null,
      description: 'my agent',
      status: 'enabled',
      disabled_reason: null,
      failing_since: null,
    });
    expect(webhook.id).toMatch(/^wh_/);
    expect(Date.parse(webhook.created_at)).not.toBeNaN();
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(webhook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const one = await getWebhook(box.deps, box.who, webhook.id);
    expect(one.id).toBe(webhook.id);
    expect(one).not.toHaveProperty('secret');
    const list = await listWebhooks(box.deps, box.who, 100);
    expect(list.webhooks.map((w) => w.id)).toContain(webhook.id);
    expect(JSON.stringify(list)).not.toContain(webhook.secret);
  });

  it('subscribes each kind once, in a stable order', async () => {
    const webhook = await create({
      events: ['email.bounced', 'email.received', 'email.bounced', 'email.sent'],
    });
    expect(webhook.events).toEqual(['email.received', 'email.sent', 'email.bounced']);
  });

  it('limits a webhook to some of your inboxes, and refuses inboxes that are not yours', async () => {
    const { inbox: second } = await box.addInbox('second@mailroom.test', 'owner');
    const mine = await create({ accounts: [second.address, second.address.toUpperCase()] });
    expect(mine.accounts).toEqual(['second@mailroom.test']);

    expect(await refusal(create({ accounts: [mallory.address] }))).toBeInstanceOf(Forbidden);
    expect(await refusal(create({ accounts: ['nobody@mailroom.test'] }))).toBeInstanceOf(Forbidden);

    const widened = await updateWebhook(box.deps, box.who, mine.id, { accounts: null });
    expect(widened.accounts).toBeNull();
  });

  it('updates url, events, description and status', async () => {
    const { id } = await create();
    const changed = await updateWebhook(box.deps, box.who, id, {
      url: 'https://93.184.215.14/v2',
      events: ['email.sent'],
      description: null,
      status: 'disabled',
    });
    expect(changed).toMatchObject({
      id,
      url: 'https://93.184.215.14/v2',
      events: ['email.sent'],
      description: null,
      status: 'disabled',
      disabled_reason: 'user',
    });
    expect(changed).not.toHaveProperty('secret');
    expect(await getWebhook(box.deps, box.who, id)).toMatchObject({ url: 'https://93.184.215.14/v2' });

    const enabled = await updateWebhook(box.deps, box.who, id, { status: 'enabled' });
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it('rotates the secret: a new one, shown once', async () => {
    const created = await create();
    const rotated = await rotateWebhookSecret(box.deps, box.who, created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await getWebhook(box.deps, box.who, created.id)).not.toHaveProperty('secret');
  });

  it('deletes a webhook', async () => {
    const { id } = await create();
    await deleteWebhook(box.deps, box.who, id);
    expect(await refusal(getWebhook(box.deps, box.who, id))).toBeInstanceOf(NotFound);
    expect(await refusal(deleteWebhook(box.deps, box.who, id))).toBeInstanceOf(NotFound);
  });

  it("refuses another user's webhook as not found, whatever the operation", async () => {
    const { id } = await create();
    const as = mallory.who;
    const { deps } = box;
    // Each started only when its turn comes: a refusal started early and awaited later is an
    // unhandled rejection meanwhile.
    for (const operation of [
      () => getWebhook(deps, as, id),
      () => updateWebhook(deps, as, id, { description: 'x' }),
      () => rotateWebhookSecret(deps, as, id),
      () => sendTestEvent(deps, as, id),
      () => listDeliveries(deps, as, id, 10),
      () => deleteWebhook(deps, as, id),
    ]) {
      expect(await refusal(operation())).toBeInstanceOf(NotFound);
    }
    expect((await listWebhooks(deps, as, 100)).webhooks).toEqual([]);
    // Still there, unchanged, for its owner.
    expect(await getWebhook(deps, box.who, id)).toMatchObject({ description: 'my agent' });
  });

  it('pages the list newest first', async () => {
    const pager = await box.addInbox('pager@mailroom.test', 'pager');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({}, pager.who)).id);
    const first = await listWebhooks(box.deps, pager.who, 2);
    expect(first.webhooks.map((w) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listWebhooks(box.deps, pager.who, 2, first.nextCursor!);
    expect(second.webhooks.map((w) => w.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
  });
});

describe('webhook URLs that would reach private networks are refused', () => {
  let box: InProcess;
  beforeAll(async () => {
    // Listening on every address: loopback is refused too (test/e2e/webhook-targets.test.ts has
    // the loopback-only server).
    box = await inProcessInbox('private@mailroom.test', { webhookAllowPrivate: false, host: '0.0.0.0' });
  });
  afterAll(async () => box?.close());

  const refused = [
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://app.localhost/hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/hook',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.0.0.1]/',
    'ftp://example.com/hook',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'http://user:pass@93.184.215.14/hook',
    'not a url',
  ];

  it('refuses each at creation, on url, and keeps nothing', async () => {
    for (const url of refused) {
      const error = await refusal(createWebhook(box.deps, box.who, { url, events: ['email.received'] }));
      expect(error, url).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).details, url).toEqual([
        { path: 'url', message: expect.any(String) },
      ]);
    }
    expect((await listWebhooks(box.deps, box.who, 100)).webhooks).toEqual([]);
  });

  it('refuses them when changing the url too, and keeps the old one', async () => {
    const { id } = await createWebhook(box.deps, box.who, hook('https://93.184.215.14/hook'));
    const error = await refusal(updateWebhook(box.deps, box.who, id, { url: 'http://10.0.0.1/' }));
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).details).toEqual([{ path: 'url', message: expect.any(String) }]);
    expect((await getWebhook(box.deps, box.who, id)).url).toBe('https://93.184.215.14/hook');
  });
});
