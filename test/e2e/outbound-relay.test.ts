import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { dkimResults } from '../helpers/dkim.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

type Delivery = { recipient: string; status: string };

describe('outbound through a relay (MAILROOM_OUTBOUND=relay)', () => {
  let capture: CaptureServer;
  let server: TestServer;
  let bob: { key: string; inbox: string };

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({
      outbound: 'relay',
      relayUrl: capture.url,
      outboundOptions: { retryBaseMs: 150, retryMaxMs: 300, pollMs: 1000 },
    });
    bob = await server.addUser('bob');
  });
  afterAll(async () => {
    await server.stop();
    await capture.close();
  });

  async function send(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, ...body },
      headers,
    });
    expect(res.status).toBe(200);
    return res.json.data as { uid: number; messageId: string; threadId: string; delivery: Delivery[] };
  }

  async function deliveryOf(uid: number): Promise<Record<string, string>> {
    const res = await server.api(`/emails/${uid}?account=${server.inbox}&folder=Sent`);
    return Object.fromEntries(
      (res.json.data.email.delivery as Delivery[]).map((d) => [d.recipient, d.status]),
    );
  }

  const capturedFor = (messageId: string) =>
    capture.messages.filter((m) => m.raw.toString('utf8').includes(`Message-ID: ${messageId}`));

  it('hands each external recipient to the relay with the right envelope; bcc only in the envelope', async () => {
    const sent = await send({
      to: 'Alice <alice@example.com>',
      cc: ['carol@example.org'],
      bcc: ['dave@example.net'],
      subject: 'Out it goes',
      text: 'Plain body',
      html: '<p>Html body</p>',
    });
    expect(sent.delivery.map((d) => d.status)).toEqual(['queued', 'queued', 'queued']);

    await eventually(async () => {
      const d = await deliveryOf(sent.uid);
      return Object.values(d).every((s) => s === 'delivered');
    });
    const copies = capturedFor(sent.messageId);
    expect(copies.every((m) => m.from === server.inbox)).toBe(true);
    expect(copies.flatMap((m) => m.to).sort()).toEqual([
      'alice@example.com',
      'carol@example.org',
      'dave@example.net',
    ]);
    for (const copy of copies) {
      const text = copy.raw.toString('utf8');
      expect(text).not.toMatch(/^bcc:/im);
      expect(text).not.toContain('dave@example.net');
      const parsed = await simpleParser(copy.raw);
      expect(parsed.subject).toBe('Out it goes');
      expect(parsed.from?.value[0]?.address).toBe(server.inbox);
      expect(parsed.messageId).toBe(sent.messageId);
      expect(parsed.text).toContain('Plain body');
      expect(parsed.html).toContain('<p>Html body</p>');
      expect(parsed.headers.get('cc')).toBeDefined();
    }
  });

  it('DKIM-signs with the domain key; the signature verifies against the published record', async () => {
    const sent = await send({ to: 'verify@example.com', subject: 'Signed', text: 'check my signature' });
    const [copy] = await eventually(() => {
      const found = capturedFor(sent.messageId);
      return found.length ? found : null;
    });
    const domain = (await server.mailroom.deps.store.domains.find('mailroom.test'))!;
    const signatures = await dkimResults(copy!.raw, domain, server.inbox);
    expect(signatures).toHaveLength(1);
    const [signature] = signatures;
    expect(signature?.signingDomain).toBe('mailroom.test');
    // Should it fail: mailauth's reason, and the headers as captured.
    const why = `${JSON.stringify(signature?.status)}\n${copy!.raw.toString('latin1').split('\r\n\r\n')[0]}`;
    expect(signature?.status?.result, why).toBe('pass');
  });

  it('delivers to local inboxes at once; only the external recipient reaches the relay', async () => {
    const sent = await send({ to: [bob.inbox, 'ext@example.com'], subject: 'Mixed', text: 'half local' });
    expect(sent.delivery).toEqual([
      { recipient: bob.inbox, status: 'delivered' },
      { recipient: 'ext@example.com', status: 'queued' },
    ]);
    const bobs = await server.api(`/emails?account=${bob.inbox}&subject=Mixed`, { key: bob.key });
    expect(bobs.json.data.emails).toHaveLength(1);
    expect(bobs.json.data.emails[0]).toMatchObject({
      messageId: sent.messageId,
      threadId: expect.stringMatching(/^thr_/),
    });
    await eventually(async () => (await deliveryOf(sent.uid))['ext@example.com'] === 'delivered');
    expect(capturedFor(sent.messageId).flatMap((m) => m.to)).toEqual(['ext@example.com']);
  });

  it('mail only for local inboxes never reaches the relay', async () => {
    const local = await send({ to: bob.inbox, subject: 'Only local', text: 'stay' });
    const marker = await send({ to: 'marker@example.com', subject: 'Marker', text: 'after' });
    await eventually(async () => (await deliveryOf(marker.uid))['marker@example.com'] === 'delivered');
    expect(capturedFor(local.messageId)).toHaveLength(0);
    expect(local.delivery).toEqual([{ recipient: bob.inbox, status: 'delivered' }]);
  });

  it('retries a recipient answered 451 and then delivers', async () => {
    capture.respond('busy@example.com', 451);
    const sent = await send({ to: 'busy@example.com', subject: 'Try again', text: 'x' });
    await eventually(async () => (await deliveryOf(sent.uid))['busy@example.com'] === 'deferred');
    await eventually(() => capture.rcptSeen.filter((r) => r === 'busy@example.com').length >= 2);
    expect(capturedFor(sent.messageId)).toHaveLength(0);
    capture.respond('busy@example.com', null);
    await eventually(async () => (await deliveryOf(sent.uid))['busy@example.com'] === 'delivered');
    expect(capturedFor(sent.messageId)).toHaveLength(1);
  });

  it('a recipient answered 550 fails for good: status failed, a DSN in INBOX, email.bounced', async () => {
    capture.respond('gone@example.com', 550);
    const sent = await send({
      to: ['gone@example.com', 'fine@example.com'],
      subject: 'Partly bouncing',
      text: 'x',
    });
    await eventually(async () => {
      const d = await deliveryOf(sent.uid);
      return d['gone@example.com'] === 'failed' && d['fine@example.com'] === 'delivered';
    });
    expect(capturedFor(sent.messageId).flatMap((m) => m.to)).toEqual(['fine@example.com']);

    const inbox = await server.api(`/emails?account=${server.inbox}&from=MAILER-DAEMON`);
    const notice = inbox.json.data.emails.find((e: { inReplyTo: string }) => e.inReplyTo === sent.messageId);
    expect(notice).toBeDefined();
    expect(notice.threadId).toBe(sent.threadId);
    expect(notice.text).toContain('gone@example.com');
    expect(notice.text).toContain('550');
    const raw = await server.api(`/emails/${notice.uid}/raw?account=${server.inbox}`);
    expect(raw.text).toMatch(/Content-Type: multipart\/report; report-type=delivery-status/);
    expect(raw.text).toMatch(
      /Final-Recipient: rfc822; gone@example\.com\r\nAction: failed\r\nStatus: 5\.1\.1/,
    );
    expect(raw.text).not.toMatch(/Final-Recipient: rfc822; fine@example\.com/);

    const events = await server.mailroom.deps.store.events.since(
      (await server.mailroom.deps.store.inboxes.list()).map((i) => i.id),
      0,
      10_000,
    );
    const bounced = events.filter((e) => e.type === 'email.bounced').map((e) => JSON.parse(e.payload));
    const mine = bounced.find((e) => e.data.email?.messageId === sent.messageId);
    expect(mine.data.account).toBe(server.inbox);
    expect(mine.data.bounce.recipients).toEqual([
      expect.objectContaining({ recipient: 'gone@example.com', status: '5.1.1' }),
    ]);
    expect(mine.data.bounce.noticeUid).toBe(notice.uid);
    expect(mine.data.email.delivery).toEqual(
      expect.arrayContaining([{ recipient: 'gone@example.com', status: 'failed' }]),
    );
  });

  it('an idempotent retry sends once: the relay sees one message', async () => {
    const headers = { 'Idempotency-Key': 'relay-once' };
    const body = { to: 'once@example.com', subject: 'Exactly once', text: 'x' };
    const [a, b] = await Promise.all([send(body, headers), send(body, headers)]);
    const c = await send(body, headers);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    await eventually(async () => (await deliveryOf(a.uid))['once@example.com'] === 'delivered');
    const copies = capture.messages.filter((m) => m.to.includes('once@example.com'));
    expect(copies).toHaveLength(1);
  });

  it('the queue survives a restart: mail deferred at shutdown goes out after it', async () => {
    capture.respond('later@example.com', 451);
    const sent = await send({ to: 'later@example.com', subject: 'Across restarts', text: 'x' });
    await eventually(async () => (await deliveryOf(sent.uid))['later@example.com'] === 'deferred');
    await server.restart();
    capture.respond('later@example.com', null);
    await eventually(async () => (await deliveryOf(sent.uid))['later@example.com'] === 'delivered');
    expect(capturedFor(sent.messageId)).toHaveLength(1);
  });
});
