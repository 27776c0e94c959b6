// Engines: SQLite only: the MCP door (tools over the verbs); postgres-doors calls an MCP tool on PostgreSQL.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError, connect, connectStdio } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { deliverDuringWait } from '../helpers/wait.js';

const TOOLS = [
  'list_inboxes',
  'list_emails',
  'read_email',
  'wait_for_email',
  'send_email',
  'reply_to_email',
  'forward_email',
  'update_email',
  'delete_email',
  'list_threads',
  'read_thread',
  'create_draft',
  'update_draft',
  'send_draft',
  'delete_draft',
  'list_labels',
  'create_label',
  'label_email',
  'get_attachment',
  'list_pending',
  'cancel_send',
];

describe('MCP over Streamable HTTP at /mcp (contract 13)', { timeout: 60_000 }, () => {
  let server: TestServer;
  let client: Client;
  let uid: number;
  const big = Buffer.alloc(300 * 1024, 'x');

  beforeAll(async () => {
    server = await startServer();
    client = await connect(server, server.key);
    await server.sendMail({
      from: 'Alice Smith <alice@example.com>',
      to: server.inbox,
      subject: 'Contract draft',
      text: 'Here is the contract.\n\nOn Mon, Mar 2, 2026 at 9:00 AM Bob <bob@example.net> wrote:\n> Send it?\n',
      attachments: [
        { filename: 'terms.txt', content: 'Terms and conditions\n', contentType: 'text/plain' },
        { filename: 'scan.bin', content: big, contentType: 'application/octet-stream' },
      ],
    });
    await eventually(
      async () => (await call(client, 'list_emails', { account: server.inbox })).emails.length,
    );
    uid = (await call(client, 'list_emails', { account: server.inbox })).emails[0].uid;
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  it('lists the contract’s tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('send_email')!.inputSchema.required).toEqual(expect.arrayContaining(['from', 'to']));
    expect(byName.get('reply_to_email')!.inputSchema.required).toEqual(
      expect.arrayContaining(['account', 'uid']),
    );
  });

  it('reads: inboxes, emails with extractedText, one email, threads', async () => {
    expect((await call(client, 'list_inboxes')).accounts.map((a: { address: string }) => a.address)).toEqual([
      server.inbox,
    ]);
    const listed = await call(client, 'list_emails', { account: server.inbox, hasAttachments: true });
    expect(listed.emails[0].extractedText).toBe('Here is the contract.');
    const { email } = await call(client, 'read_email', { account: server.inbox, uid });
    expect(email.subject).toBe('Contract draft');
    const { threads } = await call(client, 'list_threads', { account: server.inbox });
    const thread = await call(client, 'read_thread', {
      account: server.inbox,
      threadId: threads[0].threadId,
    });
    expect(thread.messages.map((m: { uid: number }) => m.uid)).toContain(uid);
  });

  it('gives a small attachment inline with its media type, a large one as a link', async () => {
    const { email } = await call(client, 'read_email', { account: server.inbox, uid });
    const idOf = (name: string) =>
      email.attachments.find((a: { filename: string }) => a.filename === name).id;
    const small = (await client.callTool({
      name: 'get_attachment',
      arguments: { account: server.inbox, uid, attachmentId: idOf('terms.txt') },
    })) as CallToolResult;
    const inline = small.content[0]!;
    expect(inline.type).toBe('resource');
    if (inline.type !== 'resource' || !('blob' in inline.resource)) throw new Error('not an embedded blob');
    expect(inline.resource.mimeType).toBe('text/plain');
    expect(Buffer.from(inline.resource.blob, 'base64').toString()).toBe('Terms and conditions\n');
    const large = (await client.callTool({
      name: 'get_attachment',
      arguments: { account: server.inbox, uid, attachmentId: idOf('scan.bin') },
    })) as CallToolResult;
    const link = large.content[0]!;
    if (link.type !== 'resource_link') throw new Error(`expected a resource link, got ${link.type}`);
    const res = await fetch(link.uri, { headers: { authorization: `Bearer ${server.key}` } });
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('wait_for_email resolves with a message delivered over SMTP during the wait', async () => {
    const waiting = call(client, 'wait_for_email', {
      account: server.inbox,
      subject: 'Your code',
      timeout: 30,
    });
    const { email } = await deliverDuringWait(server, waiting, {
      from: 'noreply@example.com',
      to: server.inbox,
      subject: 'Your code 123456',
      text: '123456',
    });
    expect(email.subject).toBe('Your code 123456');
    // Mail already there answers at once (since counts mail dated from then on).
    const again = await call(client, 'wait_for_email', {
      account: server.inbox,
      subject: 'Your code',
      since: '2000-01-01T00:00:00Z',
      timeout: 30,
    });
    expect(again.email.subject).toBe('Your code 123456');
  });

  it('sends, replies, forwards, organises, labels and drafts through the mailbox verbs', async () => {
    const bob = await server.addUser('bob-mcp', 'bob-mcp');
    const sent = await call(client, 'send_email', {
      from: server.inbox,
      to: bob.inbox,
      subject: 'Hi Bob',
      text: 'Hi',
    });
    expect(sent.delivery).toEqual([{ recipient: bob.inbox, status: 'delivered' }]);
    const reply = await call(client, 'reply_to_email', { account: server.inbox, uid, text: 'Thanks!' });
    expect(reply.subject).toBe('Re: Contract draft');
    const forward = await call(client, 'forward_email', { account: server.inbox, uid, to: bob.inbox });
    expect(forward.subject).toBe('Fwd: Contract draft');
    const flagged = await call(client, 'update_email', { account: server.inbox, uid, action: 'flag' });
    expect(flagged.email.flags).toContain('\\Flagged');
    const { label } = await call(client, 'create_label', { name: 'Legal' });
    const labelled = await call(client, 'label_email', { account: server.inbox, uid, labels: ['Legal'] });
    expect(labelled.email.labels.map((l: { id: string }) => l.id)).toEqual([label.id]);
    expect((await call(client, 'list_labels')).labels.map((l: { name: string }) => l.name)).toContain(
      'Legal',
    );
    const { draft } = await call(client, 'create_draft', {
      account: server.inbox,
      to: bob.inbox,
      subject: 'Draft',
    });
    const updated = await call(client, 'update_draft', {
      account: server.inbox,
      uid: draft.uid,
      text: 'Body',
    });
    expect(updated.draft.text.trimEnd()).toBe('Body');
    const sentDraft = await call(client, 'send_draft', { account: server.inbox, uid: draft.uid });
    expect(sentDraft.uid).toBe(draft.uid);
    const other = await call(client, 'create_draft', { account: server.inbox, subject: 'Scrap' });
    expect(await call(client, 'delete_draft', { account: server.inbox, uid: other.draft.uid })).toEqual({
      uid: other.draft.uid,
      deleted: true,
    });
    const deleted = await call(client, 'delete_email', { account: server.inbox, uid });
    expect(deleted).toEqual({ uid, deleted: false, folder: 'Trash' });
    const bobsInbox = await server.api(`/emails?account=${bob.inbox}`, { key: bob.key });
    expect(bobsInbox.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(
      expect.arrayContaining(['Hi Bob', 'Fwd: Contract draft', 'Draft']),
    );
  });

  it('answers mistakes as tool errors with the contract’s code and what to fix', async () => {
    const missing = await callError(client, 'read_email', { account: server.inbox, uid: 999_999 });
    expect(missing.code).toBe('not_found');
    const invalid = await callError(client, 'send_email', { from: server.inbox, subject: 'x', text: 'x' });
    expect(invalid.code).toBe('validation_error');
    expect(invalid.message).toMatch(/^to: /);
    const unknownField = await callError(client, 'list_emails', { account: server.inbox, folderr: 'INBOX' });
    expect(unknownField.code).toBe('validation_error');
    expect(unknownField.message).toMatch(/folderr/);
  });

  it('shows another key nothing of this one’s inboxes', async () => {
    const carol = await server.addUser('carol-mcp', 'carol-mcp');
    const carolClient = await connect(server, carol.key);
    try {
      const { accounts } = await call(carolClient, 'list_inboxes');
      expect(accounts.map((a: { address: string }) => a.address)).toEqual([carol.inbox]);
      for (const [name, args] of [
        ['list_emails', { account: server.inbox }],
        ['read_email', { account: server.inbox, uid }],
        ['wait_for_email', { account: server.inbox, timeout: 1 }],
        ['delete_email', { account: server.inbox, uid }],
      ] as const) {
        expect((await callError(carolClient, name, args)).code, name).toBe('forbidden');
      }
    } finally {
      await carolClient.close();
    }
  });

  it('refuses a request without a valid key, and GET/DELETE in stateless mode', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer mr_nope' },
      body,
    });
    expect(wrong.status).toBe(401);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.baseUrl}/mcp`, {
        method,
        headers: { authorization: `Bearer ${server.key}` },
      });
      expect(res.status, method).toBe(405);
    }
  });
});

describe('mailroom mcp: the stdio door, proxied to /mcp', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  it('lists the tools and reads the inbox through a child process', async () => {
    const client = await connectStdio(server, server.key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
      await server.sendMail({
        from: 'alice@example.com',
        to: server.inbox,
        subject: 'Via stdio',
        text: 'hello',
      });
      const { email } = await call(client, 'wait_for_email', {
        account: server.inbox,
        since: '2000-01-01T00:00:00Z',
        timeout: 30,
      });
      expect(email.subject).toBe('Via stdio');
    } finally {
      await client.close();
    }
  });
});
