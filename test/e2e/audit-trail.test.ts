// Engines: SQLite only: the trail through each door (request ids, a key's reach over HTTP, the admin API, audit verify's exit code); what the list answers runs on both engines in test/mailbox/audit-trail.test.ts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, callError } from '../helpers/mcp.js';
import { mailroom } from '../helpers/cli.js';
import { signInOverHttp } from '../helpers/dashboard.js';
import type { TestServer } from '../helpers/server.js';
import { startServer } from '../helpers/server.js';

const TOKEN = 'admin-token-for-the-audit-trail-0123456789';

interface AuditRecord {
  id: string;
  actor: { kind: string; id: string | null };
  door: string;
  action: string;
  account: string | null;
  target: string | null;
  outcome: string;
  requestId: string | null;
  hash: string;
}

describe('the audit trail of a session through every door (contract 15)', () => {
  let server: TestServer;
  let keyId: string;
  let mcp: Client;
  const other = 'elsewhere@mailroom.test';

  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN, ingestThread: false, parseThreads: 0 });
    keyId = (await server.api('/me')).json.data.key.id;
    const made = await server.api('/admin/v1/inboxes', {
      key: TOKEN,
      body: { address: other, user: 'default' },
    });
    expect(made.status, made.text).toBe(201);
    mcp = new Client({ name: 'audit-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${server.key}`, 'x-request-id': 'mcp-audit-session' },
        },
      }),
    );
  });
  afterAll(async () => {
    await mcp?.close();
    await server?.stop();
  });

  async function trail(query = '', key = server.key): Promise<AuditRecord[]> {
    const res = await server.api(`/audit?limit=100${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.json.data.records;
  }

  it('gives back each action of HTTP, MCP, the dashboard and the CLI with the request id its answer carried', async () => {
    const sent = await server.api('/emails/send', {
      body: { from: server.inbox, to: [other], subject: 'Quarterly secret plans', text: 'body text' },
    });
    expect(sent.status, sent.text).toBe(200);
    const sendId = sent.headers.get('x-request-id')!;

    const moved = await server.api(`/emails/${sent.json.data.uid}?account=${server.inbox}&folder=Sent`, {
      method: 'DELETE',
    });
    expect(moved.status, moved.text).toBe(200);

    const refused = await server.api('/lists/send/block', {
      body: { account: other, entry: 'not an entry!' },
    });
    expect(refused.status).toBe(400);

    await call(mcp, 'create_label', { name: 'From MCP' });
    const mcpRefusal = await callError(mcp, 'delete_email', { account: server.inbox, uid: 999999 });
    expect(mcpRefusal.code).toBe('not_found');

    const dashboard = await signInOverHttp(server);
    const label = await dashboard.post('/labels', { name: 'From the dashboard' });
    expect(label.status, label.html).toBe(303);

    const made = await mailroom(
      ['key', 'create', '--user', 'default', '--name', 'cli key', '--json'],
      server.cliEnv,
    );
    expect(made.code, made.stderr).toBe(0);
    const cliKey = JSON.parse(made.stdout).key as { id: string; key: string };

    const records = await trail();
    const byRequest = (id: string | null) => records.filter((r) => r.requestId === id);
    expect(byRequest(sendId)).toEqual([
      expect.objectContaining({
        actor: { kind: 'key', id: keyId },
        door: 'api',
        action: 'email.send',
        account: server.inbox,
        target: String(sent.json.data.uid),
        outcome: 'ok',
      }),
    ]);
    expect(byRequest(moved.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ action: 'email.delete', outcome: 'ok', account: server.inbox }),
    ]);
    expect(byRequest(refused.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ action: 'list.add', outcome: 'validation_error', account: other }),
    ]);
    expect(byRequest('mcp-audit-session').map((r) => [r.door, r.action, r.outcome])).toEqual([
      ['mcp', 'email.delete', 'not_found'],
      ['mcp', 'label.create', 'ok'],
    ]);
    expect(byRequest(label.requestId)).toEqual([
      expect.objectContaining({
        door: 'dashboard',
        action: 'label.create',
        outcome: 'ok',
        actor: expect.objectContaining({ kind: 'user' }),
      }),
    ]);
    expect(records.filter((r) => r.door === 'cli')).toEqual([
      expect.objectContaining({
        actor: { kind: 'admin', id: null },
        action: 'key.create',
        target: cliKey.id,
        requestId: null,
      }),
    ]);
    // Never a body or a secret: not the subject sent, not the key the CLI printed.
    const all = JSON.stringify(records);
    expect(all).not.toContain('Quarterly secret plans');
    expect(all).not.toContain(cliKey.key);

    const verified = await mailroom(['audit', 'verify'], server.cliEnv);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('whole');
  });

  it('shows a key limited to one inbox that inbox and the user-wide records only, and pages newest first', async () => {
    const made = await server.api('/admin/v1/keys', {
      key: TOKEN,
      body: { user: 'default', inboxes: [other], permissions: ['manage', 'send'] },
    });
    const limited = made.json.data.key.key as string;
    const seen = await trail('', limited);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.account === null || r.account === other)).toBe(true);
    expect((await server.api(`/audit?account=${server.inbox}`, { key: limited })).status).toBe(403);

    const first = await server.api('/audit?limit=2');
    const second = await server.api(`/audit?limit=2&cursor=${first.json.data.nextCursor}`);
    const whole = await trail();
    expect([...first.json.data.records, ...second.json.data.records].map((r: AuditRecord) => r.id)).toEqual(
      whole.slice(0, 4).map((r) => r.id),
    );
    const refusals = await trail('&outcome=validation_error&action=list.add');
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((r) => r.outcome === 'validation_error' && r.action === 'list.add')).toBe(true);
  });

  it('names the first record edited in the database: audit verify exits 1', async () => {
    const [newest, edited] = await trail();
    const { db } = server.mailroom.deps.store;
    await db.run(
      db.kysely
        .updateTable('audit_log')
        .set({ outcome: 'ok', target: 'changed' })
        .where('id', '=', edited!.id),
    );
    const verified = await mailroom(['audit', 'verify'], server.cliEnv);
    expect(verified.code).toBe(1);
    expect(verified.stderr).toContain(edited!.id);
    expect(verified.stderr).not.toContain(newest!.id);
  });

  it("lists every user's records on the admin API", async () => {
    const res = await server.api('/admin/v1/audit?action=key.create', { key: TOKEN });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.records.map((r: AuditRecord) => r.door)).toEqual(
      expect.arrayContaining(['cli', 'admin']),
    );
  });
});
