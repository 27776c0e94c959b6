import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ListEmailsQuery } from '../../src/contract/emails.js';
import type { WebhookDispatcher } from '../../src/events/dispatcher.js';
import { openEventFeed } from '../../src/mailbox/events/event-stream.js';
import { createWebhook } from '../../src/mailbox/events/webhooks.js';
import { listEmails, readEmail } from '../../src/mailbox/reading/read.js';
import { inProcessInbox, startDispatcher } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';
import { eventually } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// The fields in the OpenAPI document are test/e2e/extracted-text.test.ts.
const fixture = (name: string) =>
  fs.readFileSync(new URL(`../../fixtures/replies/${name}.eml`, import.meta.url));

let box: InProcess;
let account: string;
beforeAll(async () => {
  box = await inProcessInbox('replies@mailroom.test');
  account = box.inbox.address;
});
afterAll(async () => box?.close());

describe('extractedText and extractedHtml on the Email (contract 13)', () => {
  beforeAll(async () => {
    await box.deliverRaw(fixture('de-outlook-plain'));
    await box.deliverRaw(fixture('gmail-en-html'));
  });

  it('lists each email with the new content of its text, without the quoted history', async () => {
    const [gmail, outlook] = (await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account }))).emails;
    expect(gmail!.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
    expect(gmail!.extractedHtml).toBeUndefined();
    expect(outlook!.text).toContain('Von: Alice Smith');
    expect(outlook!.extractedText).toBe(
      'Hallo Frau Smith,\n\nwir nehmen das Angebot an.\n\nMit freundlichen Grüßen\nMax Mustermann',
    );
  });

  it('reads an email with extractedText and extractedHtml, the quote and signature gone from both', async () => {
    const [listed] = (
      await listEmails(box.deps, box.who, ListEmailsQuery.parse({ account, subject: 'Meeting' }))
    ).emails;
    const email = await readEmail(box.deps, box.who, account, listed!.uid);
    expect(email.html).toContain('gmail_quote');
    expect(email.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
    expect(email.extractedHtml).toContain('Works for me, see you Thursday.');
    expect(email.extractedHtml).not.toContain('Shall we meet');
    expect(email.extractedHtml).not.toContain('Head of Finance');
  });
});

describe('extractedText and extractedHtml in events (webhooks and the event stream)', () => {
  let receiver: WebhookReceiver;
  let dispatcher: WebhookDispatcher;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    dispatcher = startDispatcher(box.deps);
  });
  afterEach(async () => {
    await dispatcher?.stop();
    await receiver?.close();
  });

  it('gives the webhook and the event feed the same new content the API reads', async () => {
    await createWebhook(box.deps, box.who, { url: receiver.url, events: ['email.received'] });
    const feed = await openEventFeed(box.deps, box.who, { account, sessionId: 'a session' });
    try {
      await box.deliverRaw(fixture('gmail-en-html'));
      const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered);
      const [row] = await feed.take();
      const fed = JSON.parse(row!.payload) as { data: { email: Record<string, string> } };
      for (const email of [request!.json.data.email, fed.data.email]) {
        expect(email.text).toContain('Shall we meet');
        expect(email.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
        expect(email.extractedHtml).toContain('Works for me, see you Thursday.');
        expect(email.extractedHtml).not.toContain('Shall we meet');
      }
    } finally {
      feed.close();
    }
  });
});
