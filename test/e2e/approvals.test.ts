import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/mailbox/operations/admin.js';
import type { Permission } from '../../src/mailbox/caller.js';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { call, connect } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

// Contract 15 over HTTP and MCP against a capture relay, on the project's engine: what waits
// leaves nothing, what is approved goes once, what is scheduled goes once at its time, across a
// restart.
describe('a person in the loop over HTTP and MCP, to a relay', () => {
  let capture: CaptureServer;
  let server: TestServer;
  let boss: string;
  let plain: string;
  let mcp: Client;

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({
      outbound: 'relay',
      relayUrl: capture.url,
      outboundOptions: { retryBaseMs: 150, retryMaxMs: 300, pollMs: 200 },
    });
    const key = async (permissions?: Permission[]) =>
      (await createKey(server.mailroom.deps, 'default', permissions ? { permissions } : {})).key;
    boss = await key(['read', 'approve']);
    plain = await key();
    mcp = await connect(server, server.key);
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
    await capture?.close();
  });

  const mode = (m: string) =>
    server.api(`/accounts/${server.inbox}/settings`, { method: 'PATCH', body: { mode: m } });
  const send = (subject: string, extra: Record<string, unknown> = {}) =>
    server.api('/emails/send', {
      method: 'POST',
      body: { from: server.inbox, to: ['bob@example.com'], subject, text: 'hi', ...extra },
    });
  const relayed = (subject: string) =>
    capture.messages.filter((m) => m.raw.toString('latin1').includes(`Subject: ${subject}`));
  const subjects = async (folder: string) =>
    (
      (await server.api(`/emails?account=${server.inbox}&folder=${folder}&limit=100`)).json.data.emails as {
        subject: string;
      }[]
    ).map((e) => e.subject);

  it('holds a send (202, nothing relayed), lists it whole, and lets only another key with approve send it, once', async () => {
    expect((await mode('approve_all')).status).toBe(200);
    const held = await send('needs a yes', { bcc: 'hidden@example.com' });
    expect(held.status).toBe(202);
    expect(held.json.data).toMatchObject({
      status: 'pending_approval',
      approvalId: expect.any(String),
      delivery: [],
    });
    const id = held.json.data.approvalId as string;

    const listed = await server.api(`/approvals?account=${server.inbox}`);
    expect(listed.status).toBe(200);
    expect(listed.json.data.approvals).toEqual([
      expect.objectContaining({
        id,
        account: server.inbox,
        requestedBy: expect.any(String),
        email: expect.objectContaining({
          subject: 'needs a yes',
          folder: 'Outbox',
          to: ['bob@example.com'],
          bcc: ['hidden@example.com'],
          text: expect.stringContaining('hi'),
        }),
      }),
    ]);
    const approve = (key: string) => server.api(`/approvals/${id}/approve`, { method: 'POST', key });
    const own = await approve(server.key);
    expect(own.status).toBe(403);
    expect(own.json.error.code).toBe('forbidden');
    expect((await approve(plain)).json.error.message).toContain('approve');
    expect(await subjects('Outbox')).toEqual(['needs a yes']);
    expect(relayed('needs a yes')).toHaveLength(0);

    const approved = await approve(boss);
    expect(approved.status).toBe(200);
    expect(approved.json.data).toMatchObject({
      decision: 'approved',
      status: 'sent',
      email: { folder: 'Sent' },
    });
    await eventually(() => relayed('needs a yes').length === 1);
    expect(relayed('needs a yes')[0]!.to.sort()).toEqual(['bob@example.com', 'hidden@example.com']);
    const twice = await approve(boss);
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('conflict');
    expect((await server.api(`/approvals?account=${server.inbox}`)).json.data.approvals).toEqual([]);
  });

  it('rejects with a reason: the message is in Drafts with rejectedReason, nothing relayed', async () => {
    const held = await send('not this');
    const rejected = await server.api(`/approvals/${held.json.data.approvalId}/reject`, {
      method: 'POST',
      key: boss,
      body: { reason: 'wrong customer' },
    });
    expect(rejected.status).toBe(200);
    expect(rejected.json.data.email).toMatchObject({ folder: 'Drafts', rejectedReason: 'wrong customer' });
    const draft = await server.api(`/emails/${held.json.data.uid}?account=${server.inbox}&folder=Drafts`);
    expect(draft.json.data.email.rejectedReason).toBe('wrong customer');
    expect(relayed('not this')).toHaveLength(0);

    const bare = await send('no reason given');
    const plainReject = await server.api(`/approvals/${bare.json.data.approvalId}/reject`, {
      method: 'POST',
      key: boss,
    });
    expect(plainReject.status, plainReject.text).toBe(200);
    expect(plainReject.json.data.email.rejectedReason).toBe('rejected');
  });

  it('tells an MCP agent its mail waits, and list_pending shows it; cancel brings it back', async () => {
    const answer = await call(mcp, 'send_email', {
      from: server.inbox,
      to: 'bob@example.com',
      subject: 'through mcp',
      text: 'hi',
    });
    expect(answer).toMatchObject({ status: 'pending_approval', note: expect.stringContaining('NOT SENT') });
    const pending = await call(mcp, 'list_pending', {});
    expect(pending.approvals.map((a: { email: { subject: string } }) => a.email.subject)).toEqual([
      'through mcp',
    ]);
    const cancelled = await server.api(`/emails/${answer.uid}/cancel?account=${server.inbox}`, {
      method: 'POST',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.email).toMatchObject({ folder: 'Drafts', rejectedReason: 'cancelled' });
    expect((await call(mcp, 'list_pending', {})).approvals).toEqual([]);
    expect((await mode('autonomous')).status).toBe(200);
  });

  it('refuses a sendAt in the past or over a year ahead, naming the field', async () => {
    const past = await send('x', { sendAt: '2001-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.json.error).toMatchObject({ code: 'validation_error', details: [{ path: 'sendAt' }] });
    const far = await send('x', { sendAt: new Date(Date.now() + 366 * 86_400_000).toISOString() });
    expect(far.json.error.details[0]).toMatchObject({
      path: 'sendAt',
      message: expect.stringContaining('365'),
    });
    expect((await send('x', { sendAt: 'tomorrow' })).status).toBe(400);
  });

  it('sends a scheduled send once at its time, across a restart', async () => {
    const sendAt = new Date(Date.now() + 8000);
    const scheduled = await send('at its time', { sendAt: sendAt.toISOString() });
    expect(scheduled.status).toBe(202);
    expect(scheduled.json.data).toMatchObject({ status: 'scheduled', sendAt: sendAt.toISOString() });
    expect(await subjects('Outbox')).toEqual(['at its time']);
    // Before its time nothing can have gone (checked only while that time is still ahead).
    if (Date.now() < sendAt.getTime()) expect(relayed('at its time')).toHaveLength(0);
    await server.restart(async () => {
      await eventually(() => Date.now() > sendAt.getTime() + 500, 60_000);
    });
    await eventually(() => relayed('at its time').length === 1, 60_000);
    await eventually(async () => (await subjects('Sent')).includes('at its time'));
    expect(await subjects('Outbox')).toEqual([]);
    expect((await subjects('Sent')).filter((s) => s === 'at its time')).toHaveLength(1);
    expect(relayed('at its time')).toHaveLength(1);
  });
});
