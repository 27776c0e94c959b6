// Engines: SQLite only: the doors' own answers (statuses, Retry-After, the MCP tool error); the rules themselves run on both engines in test/mailbox/send-limits.test.ts
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { callError, connect } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe('inbox settings and send refusals through HTTP and MCP, to a relay', () => {
  let capture: CaptureServer;
  let server: TestServer;
  let mcp: Client;

  beforeAll(async () => {
    capture = await startCaptureServer();
    server = await startServer({
      outbound: 'relay',
      relayUrl: capture.url,
      outboundOptions: { retryBaseMs: 150, retryMaxMs: 300, pollMs: 200 },
    });
    mcp = await connect(server, server.key);
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
    await capture?.close();
  });

  const settingsPath = () => `/accounts/${server.inbox}/settings`;
  const patch = (body: unknown) => server.api(settingsPath(), { method: 'PATCH', body });
  const send = (to: string[], subject: string) =>
    server.api('/emails/send', { method: 'POST', body: { from: server.inbox, to, subject, text: 'hi' } });
  const sentSubjects = async () =>
    (
      (await server.api(`/emails?account=${server.inbox}&folder=Sent&limit=100`)).json.data.emails as {
        subject: string;
      }[]
    ).map((e) => e.subject);

  it('reads and changes the settings, and refuses a bad one', async () => {
    const read = await server.api(settingsPath());
    expect(read.status).toBe(200);
    expect(read.json.data.settings).toEqual({
      mode: 'autonomous',
      paused: false,
      limits: { perHour: 500, perDay: 2000 },
      sent: { lastHour: 0, lastDay: 0 },
    });
    const bad = await patch({ limits: { perHour: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].path).toBe('limits.perHour');
    const approval = await patch({ mode: 'approve_all' });
    expect(approval.json.data.settings.mode).toBe('approve_all');
    expect((await patch({ mode: 'autonomous' })).status).toBe(200);
    const other = await server.addUser('mallory');
    expect((await server.api(settingsPath(), { key: other.key })).status).toBe(403);
  });

  it('lets exactly the limit through to the relay, then answers 429 with Retry-After naming the limit', async () => {
    const changed = await patch({ limits: { perHour: 3 } });
    expect(changed.json.data.settings.limits).toEqual({ perHour: 3, perDay: 2000 });
    expect((await send(['a@example.com', 'b@example.com'], 'first two')).status).toBe(200);
    const refused = await send(['c@example.com', 'd@example.com'], 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('rate_limited');
    expect(refused.json.error.message).toContain('perHour');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600).toBe(true);
    expect((await send(['c@example.com'], 'third')).status).toBe(200);
    const relayed = () => capture.messages.flatMap((m) => m.to).sort();
    await eventually(() => relayed().length >= 3);
    expect(relayed()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    expect(await sentSubjects()).not.toContain('one too many');
    expect((await server.api(settingsPath())).json.data.settings.sent.lastHour).toBe(3);

    const tool = await callError(mcp, 'send_email', {
      from: server.inbox,
      to: 'e@example.com',
      subject: 'by MCP',
      text: 'hi',
    });
    expect(tool.code).toBe('rate_limited');
    expect(tool.message).toContain('perHour');
    await patch({ limits: { perHour: null } });
  });

  it('answers 409 inbox_paused while paused, through HTTP and MCP, and still receives mail', async () => {
    expect((await patch({ paused: true })).json.data.settings.paused).toBe(true);
    const refused = await send(['a@example.com'], 'while paused');
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('inbox_paused');
    expect(refused.json.error.message).toContain('paused');
    const tool = await callError(mcp, 'send_email', {
      from: server.inbox,
      to: 'a@example.com',
      subject: 's',
      text: 'x',
    });
    expect(tool.code).toBe('inbox_paused');
    await server.sendMail({ from: 'p@example.com', to: server.inbox, subject: 'paused but in', text: 'hi' });
    await eventually(async () => {
      const list = await server.api(`/emails?account=${server.inbox}`);
      if (list.status !== 200) throw new Error(list.text);
      return (list.json.data.emails as { subject: string }[]).some((e) => e.subject === 'paused but in');
    });
    await patch({ paused: false });
    expect((await send(['a@example.com'], 'resumed')).status).toBe(200);
  });

  it('answers 429 loop_detected with Retry-After when one address gets too many messages', async () => {
    const loopLimit = server.mailroom.deps.config.loopLimit;
    for (let i = 0; i < loopLimit; i++)
      expect((await send(['loop@example.com'], `loop ${i}`)).status).toBe(200);
    const refused = await send(['loop@example.com'], 'loop again');
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('loop_detected');
    expect(refused.json.error.details).toEqual([
      { path: 'to', message: expect.stringContaining('loop@example.com') },
    ]);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter > 0 && retryAfter <= 600).toBe(true);
  });
});
