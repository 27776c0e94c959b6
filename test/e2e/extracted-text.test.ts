import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream } from '../helpers/sse-client.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const fixture = (name: string) =>
  fs.readFileSync(new URL(`../../fixtures/replies/${name}.eml`, import.meta.url));

describe('extractedText and extractedHtml on the Email (contract 13)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    const envelope = { from: 'bob@example.net', to: [server.inbox] };
    await server.sendRaw(fixture('de-outlook-plain'), envelope);
    await server.sendRaw(fixture('gmail-en-html'), envelope);
  });
  afterAll(() => server.stop());

  it('lists each email with the new content of its text, without the quoted history', async () => {
    const res = await server.api(`/emails?account=${server.inbox}`);
    expect(res.status).toBe(200);
    const [gmail, outlook] = res.json.data.emails;
    expect(gmail.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
    expect(gmail.extractedHtml).toBeUndefined();
    expect(outlook.text).toContain('Von: Alice Smith');
    expect(outlook.extractedText).toBe(
      'Hallo Frau Smith,\n\nwir nehmen das Angebot an.\n\nMit freundlichen Grüßen\nMax Mustermann',
    );
  });

  it('reads an email with extractedText and extractedHtml, the quote and signature gone from both', async () => {
    const list = await server.api(`/emails?account=${server.inbox}&subject=Meeting`);
    const uid = list.json.data.emails[0].uid;
    const res = await server.api(`/emails/${uid}?account=${server.inbox}`);
    const email = res.json.data.email;
    expect(email.html).toContain('gmail_quote');
    expect(email.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
    expect(email.extractedHtml).toContain('Works for me, see you Thursday.');
    expect(email.extractedHtml).not.toContain('Shall we meet');
    expect(email.extractedHtml).not.toContain('Head of Finance');
  });

  it('documents both fields in the OpenAPI Email schema', async () => {
    const res = await server.api('/api/v1/openapi.json', { key: null });
    const email = res.json.components.schemas.Email;
    expect(email.properties.extractedText.type).toBe('string');
    expect(email.properties.extractedHtml.type).toBe('string');
    expect(email.required).toContain('extractedText');
  });
});

describe('extractedText and extractedHtml in events (webhooks and the event stream)', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startServer();
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  it('gives the webhook and the stream the same new content the API reads', async () => {
    const hook = await server.api('/webhooks', { body: { url: receiver.url, events: ['email.received'] } });
    expect(hook.status).toBe(201);
    const stream = await openStream(server, `?account=${server.inbox}`);
    try {
      await server.sendRaw(fixture('gmail-en-html'), { from: 'bob@example.net', to: [server.inbox] });
      const [request] = await eventually(() => receiver.delivered.length >= 1 && receiver.delivered);
      const streamed = await stream.nextEvent();
      for (const email of [request!.json.data.email, streamed.json.data.email]) {
        expect(email.text).toContain('Shall we meet');
        expect(email.extractedText).toBe('Works for me, see you Thursday.\n\nBob');
        expect(email.extractedHtml).toContain('Works for me, see you Thursday.');
        expect(email.extractedHtml).not.toContain('Shall we meet');
      }
    } finally {
      stream.close();
    }
  });
});
