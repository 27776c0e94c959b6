import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeDsn } from '../../src/mail/dsn.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

// Allow and block lists and suppressions through the API, sending to a capture relay (contract 14).
describe('allow and block lists and suppressions over HTTP', () => {
  let capture: CaptureServer;
  let server: TestServer;

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({ outbound: 'relay', relayUrl: capture.url });
  });
  afterAll(async () => {
    await server?.stop();
    await capture?.close();
  });

  const send = (body: Record<string, unknown>) =>
    server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, subject: 'hi', text: 'hello', ...body },
    });
  const sentSubjects = async () =>
    (await server.api(`/emails?account=${server.inbox}&folder=Sent&limit=100`)).json.data.emails.map(
      (e: { subject: string }) => e.subject,
    );

  it('adds, lists and removes entries, user-wide or for one inbox, and refuses what is not an entry', async () => {
    const added = await server.api('/lists/receive/block', {
      method: 'POST',
      body: { entry: ' Pest.Example ', reason: 'noise' },
    });
    expect(added.status).toBe(201);
    expect(added.json.data.entry).toEqual({
      entry: 'pest.example',
      direction: 'receive',
      type: 'block',
      account: null,
      reason: 'noise',
      created_at: expect.any(String),
    });
    const forInbox = await server.api('/lists/receive/block', {
      method: 'POST',
      body: { entry: 'bob@pest.example', account: server.inbox },
    });
    expect(forInbox.status).toBe(201);
    expect(forInbox.json.data.entry).toMatchObject({ account: server.inbox, reason: null });

    const userWide = await server.api('/lists/receive/block');
    expect(userWide.json.data.entries.map((e: { entry: string }) => e.entry)).toEqual(['pest.example']);
    const inboxOnly = await server.api(`/lists/receive/block?account=${server.inbox}`);
    expect(inboxOnly.json.data.entries.map((e: { entry: string }) => e.entry)).toEqual(['bob@pest.example']);
    expect((await server.api('/lists/send/allow')).json.data.entries).toEqual([]);

    const bad = await server.api('/lists/receive/block', {
      method: 'POST',
      body: { entry: 'not an address' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('validation_error');
    expect(bad.json.error.details[0].path).toBe('entry');
    expect((await server.api('/lists/sideways/block')).status).toBe(400);
    const notMine = await server.api('/lists/send/block?account=someone@else.test');
    expect(notMine.status).toBe(403);

    const removed = await server.api(
      `/lists/receive/block/${encodeURIComponent('bob@pest.example')}?account=${server.inbox}`,
      {
        method: 'DELETE',
      },
    );
    expect(removed.json).toEqual({ success: true, data: { entry: 'bob@pest.example', deleted: true } });
    const again = await server.api(`/lists/receive/block/bob@pest.example?account=${server.inbox}`, {
      method: 'DELETE',
    });
    expect(again.status).toBe(404);
    expect((await server.api('/lists/receive/block/pest.example', { method: 'DELETE' })).status).toBe(200);
  });

  it('refuses a send with a blocked recipient whole: 403, each address with its reason, nothing in Sent, nothing relayed', async () => {
    await server.api('/lists/send/block', { method: 'POST', body: { entry: 'blocked.example' } });
    const refused = await send({
      subject: 'refused',
      to: ['first@fine.example'],
      cc: ['a@blocked.example'],
      bcc: ['b@sub.blocked.example'],
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('recipient_blocked');
    expect(refused.json.error.details).toEqual([
      expect.objectContaining({ path: 'cc', address: 'a@blocked.example', reason: 'blocked' }),
      expect.objectContaining({ path: 'bcc', address: 'b@sub.blocked.example', reason: 'blocked' }),
    ]);
    expect(refused.json.error.message).toContain('a@blocked.example');

    // A send after it goes through; by the time it is delivered, the refused one would have been too.
    const allowed = await send({ subject: 'allowed', to: ['second@fine.example'] });
    expect(allowed.status).toBe(200);
    await eventually(() => capture.rcptSeen.includes('second@fine.example'));
    expect(capture.rcptSeen).not.toContain('first@fine.example');
    expect(await sentSubjects()).toEqual(['allowed']);
    await server.api('/lists/send/block/blocked.example', { method: 'DELETE' });
  });

  it('suppresses an address the relay refused with 5xx, refuses later sends to it, and lifts it', async () => {
    capture.respond('gone@example.com', 550);
    expect((await send({ subject: 'first try', to: ['gone@example.com'] })).status).toBe(200);
    const suppressions = await eventually(async () => {
      const listed = (await server.api('/suppressions')).json.data.suppressions;
      return listed.length > 0 ? listed : null;
    });
    expect(suppressions).toEqual([
      { address: 'gone@example.com', reason: 'bounced', created_at: expect.any(String) },
    ]);

    // Whatever the allow lists say.
    await server.api('/lists/send/allow', {
      method: 'POST',
      body: { entry: 'gone@example.com', account: server.inbox },
    });
    const refused = await send({ subject: 'second try', to: ['Gone@Example.com'] });
    expect(refused.status).toBe(403);
    expect(refused.json.error.details).toEqual([
      expect.objectContaining({ path: 'to', address: 'gone@example.com', reason: 'suppressed' }),
    ]);

    const lifted = await server.api('/suppressions/gone@example.com', { method: 'DELETE' });
    expect(lifted.json).toEqual({ success: true, data: { address: 'gone@example.com', deleted: true } });
    expect((await server.api('/suppressions')).json.data.suppressions).toEqual([]);
    expect((await server.api('/suppressions/gone@example.com', { method: 'DELETE' })).status).toBe(404);
    await server.api(`/lists/send/allow/gone@example.com?account=${server.inbox}`, { method: 'DELETE' });
    capture.respond('gone@example.com', null);
    expect((await send({ subject: 'third try', to: ['gone@example.com'] })).status).toBe(200);
  });

  it('suppresses the failed recipients a bounce report names for a message this inbox sent, and no others', async () => {
    const sent = await send({ subject: 'bounced later', to: ['later@example.com', 'fine@example.com'] });
    expect(sent.status).toBe(200);
    const bounce = (messageId: string, recipients: string[]) =>
      composeDsn({
        reportingMta: 'mx.example.com',
        domain: 'example.com',
        to: server.inbox,
        original: {
          headers: `From: ${server.inbox}\r\nMessage-ID: ${messageId}\r\nSubject: bounced later\r\n`,
          messageId,
          subject: 'bounced later',
          arrivalDate: new Date(),
        },
        recipients: recipients.map((recipient) => ({
          recipient,
          status: '5.1.1',
          diagnostic: '550 5.1.1 no such user',
          remoteMta: 'mx.example.com',
          lastAttempt: new Date(),
        })),
      }).raw;
    const envelope = { from: 'mailer-daemon@mx.example.com', to: [server.inbox] };
    // A report naming an address this message never went to, and one about a message never sent.
    await server.sendRaw(
      bounce(sent.json.data.messageId, ['later@example.com', 'stranger@example.com']),
      envelope,
    );
    await server.sendRaw(bounce('<never-sent@mailroom.test>', ['fine@example.com']), envelope);
    const listed = (await server.api('/suppressions')).json.data.suppressions;
    expect(listed.map((s: { address: string }) => s.address)).toEqual(['later@example.com']);
    expect(listed[0].reason).toBe('bounced');
    await server.api('/suppressions/later@example.com', { method: 'DELETE' });
  });
});
