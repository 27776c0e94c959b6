import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

/** Each way mail says a machine sent it (contract 14), and mail that does not. */
const KINDS: { subject: string; sender: string; headers: Record<string, string>; autoReply: boolean }[] = [
  {
    subject: 'auto-submitted',
    sender: 'a@example.com',
    headers: { 'Auto-Submitted': 'auto-replied' },
    autoReply: true,
  },
  {
    subject: 'auto-generated',
    sender: 'a@example.com',
    headers: { 'Auto-Submitted': 'auto-generated; owner=x' },
    autoReply: true,
  },
  { subject: 'precedence bulk', sender: 'a@example.com', headers: { Precedence: 'bulk' }, autoReply: true },
  { subject: 'precedence junk', sender: 'a@example.com', headers: { Precedence: 'junk' }, autoReply: true },
  { subject: 'precedence list', sender: 'a@example.com', headers: { Precedence: 'list' }, autoReply: true },
  { subject: 'x-autoreply', sender: 'a@example.com', headers: { 'X-Autoreply': 'yes' }, autoReply: true },
  {
    subject: 'x-autorespond',
    sender: 'a@example.com',
    headers: { 'X-Autorespond': 'Out of office' },
    autoReply: true,
  },
  { subject: 'null sender', sender: '', headers: {}, autoReply: true },
  {
    subject: 'auto-submitted no',
    sender: 'a@example.com',
    headers: { 'Auto-Submitted': 'no' },
    autoReply: false,
  },
  {
    subject: 'precedence first-class',
    sender: 'a@example.com',
    headers: { Precedence: 'first-class' },
    autoReply: false,
  },
  { subject: 'a person', sender: 'a@example.com', headers: {}, autoReply: false },
];

describe('autoReply on every Email', () => {
  let server: TestServer;
  let mcp: Client;

  beforeAll(async () => {
    server = await startServer({ verifyAuth: false });
    mcp = await connect(server, server.key);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    try {
      for (const kind of KINDS) {
        const raw = rawMessage({
          from: 'a@example.com',
          to: server.inbox,
          subject: kind.subject,
          headers: kind.headers,
        });
        const { data } = await smtp.send(kind.sender, [server.inbox], raw);
        expect(data?.code).toBe(250);
      }
    } finally {
      await smtp.close();
    }
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  type Listed = { uid: number; subject: string; autoReply: boolean };
  const listed = async (): Promise<Listed[]> =>
    (await server.api(`/emails?account=${server.inbox}&limit=100`)).json.data.emails as Listed[];
  const expected = Object.fromEntries(KINDS.map((k) => [k.subject, k.autoReply]));

  it('is true for each kind of automatic mail and false otherwise, in a list', async () => {
    const emails = await eventually(async () => {
      const page = await listed();
      return page.length >= KINDS.length ? page : null;
    });
    const bySubject = Object.fromEntries(
      emails.filter((e) => e.subject in expected).map((e) => [e.subject, e.autoReply]),
    );
    expect(bySubject).toEqual(expected);
  });

  it('is the same when one email is read, through HTTP and MCP', async () => {
    for (const email of await listed()) {
      if (!(email.subject in expected)) continue;
      const read = await server.api(`/emails/${email.uid}?account=${server.inbox}`);
      expect(read.json.data.email.autoReply, email.subject).toBe(expected[email.subject]);
      const tool = await call(mcp, 'read_email', { account: server.inbox, uid: email.uid });
      expect(tool.email.autoReply, email.subject).toBe(expected[email.subject]);
    }
  });

  it('is false on mail the account sent', async () => {
    const sent = await server.api('/emails/send', {
      method: 'POST',
      body: {
        from: server.inbox,
        to: ['x@example.com'],
        subject: 'mine',
        text: 'hi',
        headers: { 'Auto-Submitted': 'auto-replied' },
      },
    });
    expect(sent.status).toBe(200);
    const read = await server.api(`/emails/${sent.json.data.uid}?account=${server.inbox}&folder=Sent`);
    expect(read.json.data.email.autoReply).toBe(false);
  });
});
