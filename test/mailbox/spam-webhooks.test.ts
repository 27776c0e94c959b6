import { ownerCaller } from '../../src/mailbox/caller.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import { createWebhook, updateWebhook } from '../../src/mailbox/events/webhooks.js';
import { receiveMessage } from '../../src/mailbox/ingest/receive.js';
import { listEmails } from '../../src/mailbox/reading/read.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';

const raw = (subject: string) =>
  Buffer.from(`From: a@example.com\r\nTo: owner@mailroom.test\r\nSubject: ${subject}\r\n\r\nHello\r\n`);

const verdict = {
  score: 7.5,
  required: 15,
  action: 'add header' as const,
  symbols: [
    { name: 'GTUBE', score: 6 },
    { name: 'RDNS_NONE', score: 1.5 },
  ],
};

describe('mail filed into Spam: its verdict, and webhooks', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('owner@mailroom.test'));
  });
  afterAll(async () => close());

  /** The subjects of the events queued for a webhook, as the event store reads them back. */
  const queuedFor = async (webhookId: string) => {
    const rows = await deps.store.db.rawAll<{ id: string }>(
      `SELECT e.id FROM webhook_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.webhook_id = ? ORDER BY e.seq`,
      webhookId,
    );
    const events = await Promise.all(rows.map((r) => deps.store.events.find(r.id)));
    return events.map(
      (e) => (JSON.parse(e!.payload) as { data: { email: { subject: string } } }).data.email.subject,
    );
  };

  it('queues email.received of Spam only for webhooks with includeSpam, and keeps the verdict on the Email', async () => {
    const url = 'https://93.184.216.34/hooks';
    const plain = await createWebhook(deps, ownerCaller(inbox.user_id), { url, events: ['email.received'] });
    const spammy = await createWebhook(deps, ownerCaller(inbox.user_id), {
      url,
      events: ['email.received'],
      includeSpam: true,
    });
    expect([plain.includeSpam, spammy.includeSpam]).toEqual([false, true]);

    await receiveMessage(deps, { raw: raw('Spam one'), inboxes: [inbox], spam: true, spamCheck: verdict });
    await receiveMessage(deps, { raw: raw('Ham one'), inboxes: [inbox] });
    expect(await queuedFor(plain.id)).toEqual(['Ham one']);
    expect(await queuedFor(spammy.id)).toEqual(['Spam one', 'Ham one']);

    expect(
      (await updateWebhook(deps, ownerCaller(inbox.user_id), plain.id, { includeSpam: true })).includeSpam,
    ).toBe(true);
    await receiveMessage(deps, { raw: raw('Spam two'), inboxes: [inbox], spam: true, spamCheck: verdict });
    expect(await queuedFor(plain.id)).toEqual(['Ham one', 'Spam two']);

    const spam = await listEmails(deps, ownerCaller(inbox.user_id), {
      account: inbox.address,
      folder: 'Spam',
      limit: 10,
    });
    expect(spam.emails.map((e) => [e.subject, e.spam])).toEqual([
      ['Spam two', verdict],
      ['Spam one', verdict],
    ]);
    const ham = await listEmails(deps, ownerCaller(inbox.user_id), {
      account: inbox.address,
      folder: 'INBOX',
      limit: 10,
    });
    expect(ham.emails.map((e) => e.spam)).toEqual([null]);
  });
});
