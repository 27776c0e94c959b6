import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('POST /emails/send (sandbox: nothing leaves the machine)', () => {
  let server: TestServer;
  let bob: { key: string; inbox: string };

  beforeAll(async () => {
    // The burst below sends 25 messages to one inbox at once: above the loop guard's 20.
    server = await startServer({ loopLimit: 50 });
    bob = await server.addUser('bob');
  });
  afterAll(async () => server.stop());

  const send = (body: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
    server.api('/emails/send', { method: 'POST', body, ...init });

  it('answers with the sent email and keeps a \\Seen copy in Sent, bcc on that copy only', async () => {
    const res = await send({
      from: server.inbox,
      to: ['Alice <alice@example.com>'],
      cc: 'carol@example.org',
      bcc: ['dave@example.net'],
      subject: 'Quarterly report',
      text: 'Numbers attached.',
      html: '<p>Numbers attached.</p>',
    });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    const data = res.json.data;
    expect(data).toMatchObject({
      from: server.inbox,
      to: ['alice@example.com'],
      cc: ['carol@example.org'],
      subject: 'Quarterly report',
      savedToSent: true,
    });
    expect(data.messageId).toMatch(/^<.+@mailroom\.test>$/);
    expect(typeof data.uid).toBe('number');
    expect(typeof data.threadId).toBe('string');
    expect(data.delivery).toEqual([
      { recipient: 'alice@example.com', status: 'captured' },
      { recipient: 'carol@example.org', status: 'captured' },
      { recipient: 'dave@example.net', status: 'captured' },
    ]);

    const sent = await server.api(`/emails/${data.uid}?account=${server.inbox}&folder=Sent`);
    expect(sent.status).toBe(200);
    const email = sent.json.data.email;
    expect(email).toMatchObject({
      folder: 'Sent',
      messageId: data.messageId,
      threadId: data.threadId,
      bcc: ['dave@example.net'],
      to: ['alice@example.com'],
      text: expect.stringContaining('Numbers attached.'),
      html: expect.stringContaining('<p>Numbers attached.</p>'),
    });
    expect(email.flags).toContain('\\Seen');
    expect(email.delivery).toEqual(data.delivery);

    const raw = await server.api(`/emails/${data.uid}/raw?account=${server.inbox}`);
    expect(raw.text).not.toMatch(/^bcc:/im);
    expect(raw.text).toMatch(/^Message-ID: <.+@mailroom\.test>/im);
  });

  it('gives an html-only message a text part that keeps the link addresses', async () => {
    const res = await send({
      from: server.inbox,
      to: [bob.inbox],
      subject: 'Links',
      html: '<p>The <a href="https://example.com/invoices/7">invoice</a> is ready.</p>',
    });
    expect(res.status).toBe(200);
    const inbox = await server.api(`/emails?account=${bob.inbox}&q=invoice`, { key: bob.key });
    expect(inbox.json.data.emails[0].text).toContain('invoice [https://example.com/invoices/7]');
  });

  it('delivers to a local inbox at once, in the recipient INBOX, with +tag addresses too', async () => {
    const res = await send({
      from: server.inbox,
      to: `bob+reports@mailroom.test`,
      subject: 'Local hello',
      text: 'Hi Bob',
    });
    expect(res.status).toBe(200);
    expect(res.json.data.delivery).toEqual([{ recipient: 'bob+reports@mailroom.test', status: 'delivered' }]);
    const inbox = await server.api(`/emails?account=${bob.inbox}`, { key: bob.key });
    const got = inbox.json.data.emails.find((e: { subject: string }) => e.subject === 'Local hello');
    expect(got).toBeDefined();
    expect(got).toMatchObject({ from: server.inbox, messageId: res.json.data.messageId, folder: 'INBOX' });
    expect(got.bcc).toBeUndefined();
    expect(got.flags).not.toContain('\\Seen');
  });

  it('keeps a blind copy out of every visible header, also for a local bcc recipient', async () => {
    const res = await send({
      from: server.inbox,
      to: 'someone@example.com',
      bcc: bob.inbox,
      subject: 'Blind copy',
      text: 'psst',
    });
    expect(res.status).toBe(200);
    const inbox = await server.api(`/emails?account=${bob.inbox}&subject=Blind`, { key: bob.key });
    const got = inbox.json.data.emails[0];
    expect(got.to).toEqual(['someone@example.com']);
    expect(got.bcc).toBeUndefined();
    const raw = await server.api(`/emails/${got.uid}/raw?account=${bob.inbox}`, { key: bob.key });
    expect(raw.text).not.toContain(bob.inbox);
  });

  it('carries attachments (base64 in, metadata and bytes out) and extra headers', async () => {
    const pdf = Buffer.from('%PDF-1.4 fake pdf bytes');
    const res = await send({
      from: server.inbox,
      to: bob.inbox,
      subject: 'With attachment',
      text: 'see file',
      attachments: [{ filename: 'report.pdf', contentType: 'application/pdf', content: b64(pdf) }],
      headers: { 'X-Ticket': 'T-42' },
    });
    expect(res.status).toBe(200);
    const list = await server.api(`/emails?account=${bob.inbox}&subject=With%20attachment`, { key: bob.key });
    const got = list.json.data.emails[0];
    expect(got.attachments).toMatchObject([{ filename: 'report.pdf', contentType: 'application/pdf' }]);
    const bytes = await fetch(
      `${server.baseUrl}/api/v1/emails/${got.uid}/attachments/${got.attachments[0].id}?account=${bob.inbox}`,
      { headers: { authorization: `Bearer ${bob.key}` } },
    );
    expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
    const raw = await server.api(`/emails/${got.uid}/raw?account=${bob.inbox}`, { key: bob.key });
    const parsed = await simpleParser(raw.text);
    expect(parsed.headers.get('x-ticket')).toBe('T-42');
  });

  it('bounces an unknown address of a hosted domain: failed, and a delivery report in INBOX', async () => {
    const res = await send({
      from: server.inbox,
      to: ['nobody@mailroom.test', bob.inbox],
      subject: 'To a ghost',
      text: 'hello?',
    });
    expect(res.status).toBe(200);
    expect(res.json.data.delivery).toEqual([
      { recipient: 'nobody@mailroom.test', status: 'failed' },
      { recipient: bob.inbox, status: 'delivered' },
    ]);
    const inbox = await server.api(`/emails?account=${server.inbox}&from=MAILER-DAEMON`);
    const notice = inbox.json.data.emails[0];
    expect(notice).toMatchObject({
      subject: 'Undelivered Mail Returned to Sender',
      inReplyTo: res.json.data.messageId,
      threadId: res.json.data.threadId,
    });
    expect(notice.text).toContain('nobody@mailroom.test');
  });

  it('records email.sent (and email.received for local recipients) in the event stream', async () => {
    const res = await send({ from: server.inbox, to: bob.inbox, subject: 'Evented', text: 'x' });
    expect(res.status).toBe(200);
    const owner = (await server.mailroom.deps.store.users.find('default'))!;
    const events = await eventually(async () => {
      const inboxes = (await server.mailroom.deps.store.inboxes.list()).map((i) => i.id);
      const rows = await server.mailroom.deps.store.events.since(inboxes, 0, 1000);
      const sent = rows.find((r) => r.type === 'email.sent' && r.payload.includes('Evented'));
      const received = rows.find((r) => r.type === 'email.received' && r.payload.includes('Evented'));
      return sent && received ? { sent, received } : null;
    });
    expect(events.sent.user_id).toBe(owner.id);
    const payload = JSON.parse(events.sent.payload);
    expect(payload.data.account).toBe(server.inbox);
    expect(payload.data.email).toMatchObject({ uid: res.json.data.uid, folder: 'Sent', subject: 'Evented' });
  });

  describe('errors', () => {
    it('400 with the path of each bad address', async () => {
      const res = await send({
        from: server.inbox,
        to: ['ok@example.com', 'not an address'],
        cc: ['also@bad@example.com'],
        subject: 's',
        text: 't',
      });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
      const paths = res.json.error.details.map((d: { path: string }) => d.path);
      expect(paths).toEqual(['to.1', 'cc.0']);
    });

    it('400 when required fields are missing', async () => {
      const res = await send({ from: server.inbox, text: 'no to, no subject' });
      expect(res.status).toBe(400);
      const paths = res.json.error.details.map((d: { path: string }) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['to', 'subject']));
    });

    it('403 from another user’s inbox, and from an address that does not exist, alike', async () => {
      const theirs = await send({ from: bob.inbox, to: 'x@example.com', subject: 's', text: 't' });
      const nobody = await send({
        from: 'ghost@mailroom.test',
        to: 'x@example.com',
        subject: 's',
        text: 't',
      });
      expect(theirs.status).toBe(403);
      expect(nobody.status).toBe(403);
      // The same words but for the address asked for: nothing says which one exists.
      const asked = (error: { message: string }, address: string) => ({
        ...error,
        message: error.message.replace(address, '<asked>'),
      });
      expect(asked(theirs.json.error, bob.inbox)).toEqual(asked(nobody.json.error, 'ghost@mailroom.test'));
      expect(theirs.json.error.code).toBe('forbidden');
    });

    it('400 for a structural or malformed extra header', async () => {
      const res = await send({
        from: server.inbox,
        to: 'x@example.com',
        subject: 's',
        text: 't',
        headers: { Bcc: 'evil@example.com' },
      });
      expect(res.status).toBe(400);
      expect(res.json.error.details[0].path).toBe('headers');
    });

    it('400 for attachment content that is not base64', async () => {
      const res = await send({
        from: server.inbox,
        to: 'x@example.com',
        subject: 's',
        attachments: [{ filename: 'a.txt', content: 'not base64!!' }],
      });
      expect(res.status).toBe(400);
      expect(res.json.error.details[0].path).toBe('attachments.0.content');
    });

    it('401 without a key, 415 without JSON, 400 invalid_json', async () => {
      const noKey = await server.api('/emails/send', { method: 'POST', body: {}, key: null });
      expect(noKey.status).toBe(401);
      const notJson = await server.api('/emails/send', {
        method: 'POST',
        body: 'from=x',
        headers: { 'content-type': 'text/plain' },
      });
      expect(notJson.status).toBe(415);
      const broken = await server.api('/emails/send', { method: 'POST', body: '{"from":' });
      expect(broken.status).toBe(400);
      expect(broken.json.error.code).toBe('invalid_json');
    });
  });

  describe('Idempotency-Key', () => {
    it('a retry with the same key and body returns the first result and sends once', async () => {
      const body = { from: server.inbox, to: bob.inbox, subject: 'Once only', text: 'exactly once' };
      const headers = { 'Idempotency-Key': 'send-once-1' };
      const [first, second] = await Promise.all([send(body, { headers }), send(body, { headers })]);
      const third = await send(body, { headers });
      expect(first.status).toBe(200);
      expect(second.json).toEqual(first.json);
      expect(third.json).toEqual(first.json);
      const got = await server.api(`/emails?account=${bob.inbox}&subject=Once%20only`, { key: bob.key });
      expect(got.json.data.emails).toHaveLength(1);
      const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent&subject=Once%20only`);
      expect(sent.json.data.emails).toHaveLength(1);
    });

    it('the same key with a different body is 409 conflict', async () => {
      const headers = { 'Idempotency-Key': 'send-once-2' };
      const first = await send(
        { from: server.inbox, to: 'a@example.com', subject: 'A', text: 'a' },
        { headers },
      );
      expect(first.status).toBe(200);
      const clash = await send(
        { from: server.inbox, to: 'a@example.com', subject: 'B', text: 'b' },
        { headers },
      );
      expect(clash.status).toBe(409);
      expect(clash.json.error.code).toBe('conflict');
    });

    it('keys belong to one user: another user may use the same key', async () => {
      const headers = { 'Idempotency-Key': 'shared-key' };
      const mine = await send(
        { from: server.inbox, to: 'a@example.com', subject: 'M', text: 'm' },
        { headers },
      );
      const theirs = await send(
        { from: bob.inbox, to: 'a@example.com', subject: 'T', text: 't' },
        { headers, key: bob.key },
      );
      expect(mine.status).toBe(200);
      expect(theirs.status).toBe(200);
      expect(theirs.json.data.from).toBe(bob.inbox);
    });
  });

  it('sends correctly under concurrency: every message once, uids distinct', async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        send({
          from: server.inbox,
          to: [bob.inbox, `ext${i}@example.com`],
          subject: `Burst ${i}`,
          text: 'x',
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const uids = new Set(results.map((r) => r.json.data.uid));
    expect(uids.size).toBe(25);
    const got = await server.api(`/emails?account=${bob.inbox}&subject=Burst&limit=100`, { key: bob.key });
    expect(got.json.data.emails).toHaveLength(25);
  });
});

describe('size limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxMessageBytes: 20_000 });
  });
  afterAll(async () => server.stop());

  it('413 payload_too_large when the message would exceed MAILROOM_MAX_MESSAGE_BYTES', async () => {
    const res = await server.api('/emails/send', {
      method: 'POST',
      body: {
        from: server.inbox,
        to: 'x@example.com',
        subject: 'big',
        attachments: [{ filename: 'big.bin', content: b64(Buffer.alloc(30_000, 7)) }],
      },
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('payload_too_large');
    const sent = await server.api(`/emails?account=${server.inbox}&folder=Sent`);
    expect(sent.json.data.emails).toHaveLength(0);
  });
});
