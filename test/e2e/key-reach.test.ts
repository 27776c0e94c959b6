// Engines: SQLite only: a door's refusals (statuses, wording, MCP's listing); the reach rules are verb rules tested on both engines in test/mailbox/key-reach.test.ts
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/server.js';
import { PERMISSIONS } from '../../src/mailbox/caller.js';
import type { Permission } from '../../src/mailbox/caller.js';
import { PERMISSION_FIELD } from '../../src/http/route-permission.js';
import { call, callError, connect } from '../helpers/mcp.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startServer } from '../helpers/server.js';
import { openStream } from '../helpers/sse-client.js';

const TOKEN = 'admin-token-for-key-reach-0123456789';

describe('keys with a reach: inboxes and permissions (contract 14)', () => {
  let server: TestServer;
  const other = 'other@mailroom.test';
  const clients: Client[] = [];

  async function makeKey(reach: { inboxes?: string[] | null; permissions?: Permission[]; name?: string }) {
    const res = await server.api('/admin/v1/keys', { key: TOKEN, body: { user: 'default', ...reach } });
    expect(res.status, res.text).toBe(201);
    return res.json.data.key as { key: string; inboxes: string[] | null; permissions: Permission[] };
  }

  async function mcp(key: string) {
    const client = await connect(server, key);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN, ingestThread: false, parseThreads: 0 });
    const inbox = await server.api('/admin/v1/inboxes', {
      key: TOKEN,
      body: { address: other, user: 'default' },
    });
    expect(inbox.status, inbox.text).toBe(201);
    await server.sendMail({ from: 'a@example.com', to: server.inbox, subject: 'to agent', text: 'hi' });
    await server.sendMail({ from: 'a@example.com', to: other, subject: 'to other', text: 'hi' });
    await eventually(async () => {
      const [a, b] = await Promise.all([
        server.api(`/emails?account=${server.inbox}`),
        server.api(`/emails?account=${other}`),
      ]);
      return a.json.data.emails.length === 1 && b.json.data.emails.length === 1;
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  it('declares a permission on every route of the OpenAPI document, and refuses a key without it', async () => {
    const doc = (await server.api('/openapi.json')).json as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const keys = new Map<Permission, string>();
    const allBut = async (p: Permission) => {
      if (!keys.has(p)) keys.set(p, (await makeKey({ permissions: PERMISSIONS.filter((q) => q !== p) })).key);
      return keys.get(p)!;
    };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const need = operation[PERMISSION_FIELD] as string | undefined;
        expect([...PERMISSIONS, 'none'], `${method} ${path} declares no permission`).toContain(need);
        if (need === 'none') continue;
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const res = await server.api(`${concrete}?account=${server.inbox}`, {
          method: method.toUpperCase(),
          key: await allBut(need as Permission),
          ...(operation.requestBody ? { body: {} } : {}),
        });
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
        expect(res.json.error.code).toBe('forbidden');
        expect(res.json.error.message).toContain(`lacks the ${need} permission`);
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it('lets each permission do its own work', async () => {
    const read = (await makeKey({ permissions: ['read'] })).key;
    const listed = await server.api(`/emails?account=${server.inbox}`, { key: read });
    expect(listed.status).toBe(200);
    const uid = listed.json.data.emails[0].uid as number;

    const organise = (await makeKey({ permissions: ['organise'] })).key;
    const flagged = await server.api(`/emails/${uid}?account=${server.inbox}`, {
      method: 'PATCH',
      key: organise,
      body: { action: 'flag' },
    });
    expect(flagged.status, flagged.text).toBe(200);

    const send = (await makeKey({ permissions: ['send'] })).key;
    const sent = await server.api('/emails/send', {
      key: send,
      body: { from: server.inbox, to: [other], subject: 'from a send-only key', text: 'hello' },
    });
    expect(sent.status, sent.text).toBe(200);

    const manage = (await makeKey({ permissions: ['manage'] })).key;
    expect((await server.api('/webhooks', { key: manage })).status).toBe(200);
    // A key made without permissions named gets all but approve.
    expect((await makeKey({})).permissions).toEqual(['read', 'organise', 'send', 'manage']);
  });

  it('answers /me with the user and the key, whatever its permissions', async () => {
    const limited = await makeKey({ name: 'narrow', inboxes: [other.toUpperCase()], permissions: ['send'] });
    const me = await server.api('/me', { key: limited.key });
    expect(me.status, me.text).toBe(200);
    expect(me.json.data).toMatchObject({
      user: { name: 'default' },
      key: { name: 'narrow', inboxes: [other], permissions: ['send'] },
    });
    expect((await server.api('/me')).json.data.key).toMatchObject({ inboxes: null });
  });

  it('keeps a key limited to one inbox out of the others everywhere', async () => {
    const { key } = await makeKey({ inboxes: [server.inbox] });
    const accounts = await server.api('/accounts', { key });
    expect(accounts.json.data.accounts.map((a: { address: string }) => a.address)).toEqual([server.inbox]);

    const refused = await server.api(`/emails?account=${other}`, { key });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toContain(other);
    expect(refused.json.error.message).toContain(`your inbox is ${server.inbox}`);
    const send = await server.api('/emails/send', {
      key,
      body: { from: other, to: [server.inbox], subject: 'x', text: 'x' },
    });
    expect(send.status).toBe(403);
    expect((await server.api(`/emails?account=${other}&wait=1`, { key })).status).toBe(403);
    expect((await server.api('/events/token', { key, body: { account: other } })).status).toBe(403);

    // Webhooks: one for all inboxes or for the other is not this key's to see; its own covers its inbox.
    const hook = { url: 'https://hooks.example.com/x', events: ['email.received'] };
    const wide = await server.api('/webhooks', { body: hook });
    const narrowed = await server.api('/webhooks', { key, body: hook });
    expect(narrowed.status, narrowed.text).toBe(201);
    expect(narrowed.json.data.webhook.accounts).toEqual([server.inbox]);
    const seen = (await server.api('/webhooks', { key })).json.data.webhooks.map((w: { id: string }) => w.id);
    expect(seen).toEqual([narrowed.json.data.webhook.id]);
    expect((await server.api(`/webhooks/${wide.json.data.webhook.id}`, { key })).status).toBe(404);
    expect(
      (await server.api(`/webhooks/${wide.json.data.webhook.id}`, { key, method: 'DELETE' })).status,
    ).toBe(404);

    // The event stream without an account: only the key's inbox, also through a stream token.
    const token = (await server.api('/events/token', { key, body: {} })).json.data.token as string;
    for (const stream of [
      await openStream(server, '', { key }),
      await openStream(server, `?token=${token}`, { key: null }),
    ]) {
      await server.sendMail({ from: 'b@example.com', to: other, subject: 'unseen', text: 'x' });
      await server.sendMail({ from: 'b@example.com', to: server.inbox, subject: 'seen', text: 'x' });
      const event = await stream.nextEvent();
      expect(event.json.data.email.subject).toBe('seen');
      stream.close();
    }

    // A key for all the user's inboxes (null) reaches both.
    const all = (await makeKey({ inboxes: null })).key;
    const both = await server.api('/accounts', { key: all });
    expect(both.json.data.accounts).toHaveLength(2);
    expect((await server.api(`/emails?account=${other}`, { key: all })).status).toBe(200);
  });

  it('refuses a key for an inbox that is not the user’s, or a permission that does not exist', async () => {
    const stranger = await server.api('/admin/v1/keys', {
      key: TOKEN,
      body: { user: 'default', inboxes: ['nobody@elsewhere.example'] },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.json.error.details[0]).toMatchObject({ path: 'inboxes.0' });
    const bogus = await server.api('/admin/v1/keys', {
      key: TOKEN,
      body: { user: 'default', permissions: ['root'] },
    });
    expect(bogus.status).toBe(400);
    expect(bogus.json.error.code).toBe('validation_error');
  });

  it('lists over MCP only the tools a key may use, and refuses the others naming the permission', async () => {
    const full = await mcp(server.key);
    expect((await full.listTools()).tools).toHaveLength(MCP_TOOLS.length);
    for (const permission of ['read', 'organise', 'send'] as const) {
      const client = await mcp(
        (await makeKey({ permissions: PERMISSIONS.filter((p) => p !== permission) })).key,
      );
      const listed = new Set((await client.listTools()).tools.map((t) => t.name));
      for (const tool of MCP_TOOLS) {
        const name = tool.listing.name;
        if (tool.permission !== permission) {
          expect(listed.has(name), name).toBe(true);
          continue;
        }
        expect(listed.has(name), name).toBe(false);
        const error = await callError(client, name, {});
        expect(error.code, name).toBe('forbidden');
        expect(error.message).toContain(`lacks the ${permission} permission`);
      }
    }
    // Every tool declares one of these: a new tool without a permission would not compile.
    expect(MCP_TOOLS.every((t) => (PERMISSIONS as readonly string[]).includes(t.permission))).toBe(true);

    const narrow = await mcp((await makeKey({ inboxes: [other], permissions: ['read'] })).key);
    expect((await call(narrow, 'list_inboxes')).accounts.map((a: { address: string }) => a.address)).toEqual([
      other,
    ]);
    expect((await callError(narrow, 'list_emails', { account: server.inbox })).code).toBe('forbidden');
  });
});
