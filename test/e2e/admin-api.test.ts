// Engines: SQLite only: the admin API as HTTP (the admin token, status codes, the answers; SMTP refusing an inbox or domain once removed); what the admin verbs keep and refuse is test/mailbox/admin.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';

const TOKEN = 'admin-token-for-tests-0123456789';

describe('the admin API without MAILROOM_ADMIN_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => server.stop());

  it('answers 404 on every admin route, whatever the token', async () => {
    for (const [method, path] of [
      ['GET', '/admin/v1/domains'],
      ['POST', '/admin/v1/users'],
      ['GET', '/admin/v1/keys'],
      ['DELETE', '/admin/v1/inboxes/x@y.test'],
    ] as const) {
      const res = await server.api(path, { method, key: TOKEN, body: method === 'POST' ? {} : undefined });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe('not_found');
    }
  });
});

describe('the admin API', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ adminToken: TOKEN });
  });
  afterAll(async () => server.stop());

  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    server.api(`/admin/v1${path}`, { ...init, key: TOKEN });

  it('answers 401 without the token or with a wrong one', async () => {
    expect((await server.api('/admin/v1/domains', { key: null })).status).toBe(401);
    const wrong = await server.api('/admin/v1/domains', { key: `${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('unauthorized');
    // An API key is not an admin token.
    expect((await server.api('/admin/v1/domains', { key: server.key })).status).toBe(401);
    const unauthenticatedBody = await server.api('/admin/v1/users', {
      key: null,
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(unauthenticatedBody.status).toBe(401);
  });

  it('adds a domain and returns the MX, SPF, DKIM and DMARC records to publish', async () => {
    const res = await admin('/domains', { body: { domain: 'Team.Example' } });
    expect(res.status).toBe(201);
    const domain = res.json.data.domain;
    expect(domain).toMatchObject({ name: 'team.example', created_at: expect.any(String) });
    // The records themselves are test/mailbox/admin.test.ts.
    expect(domain.dnsRecords.map((r: { type: string }) => r.type).sort()).toEqual([
      'MX',
      'TXT',
      'TXT',
      'TXT',
    ]);
    expect(JSON.stringify(res.json)).not.toContain('PRIVATE KEY');

    const list = await admin('/domains');
    expect(list.json.data.domains.map((d: { name: string }) => d.name)).toContain('team.example');
  });

  it('refuses a duplicate domain (409) and a name that is not a domain (400)', async () => {
    const dup = await admin('/domains', { body: { domain: 'team.example' } });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe('conflict');
    const bad = await admin('/domains', { body: { domain: 'not a domain' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].path).toBe('domain');
    expect((await admin('/domains', { body: {} })).status).toBe(400);
  });

  it('sets up a team end to end: user, inbox, key; mail arrives and the key reads it', async () => {
    const user = await admin('/users', { body: { name: 'support' } });
    expect(user.status).toBe(201);
    expect(user.json.data.user).toMatchObject({ id: expect.any(Number), name: 'support' });

    const inbox = await admin('/inboxes', {
      body: { address: 'Help@team.example', user: 'support', displayName: 'Help desk' },
    });
    expect(inbox.status).toBe(201);
    expect(inbox.json.data.inbox).toMatchObject({
      address: 'help@team.example',
      kind: 'local',
      user: 'support',
      displayName: 'Help desk',
    });

    const key = await admin('/keys', { body: { user: user.json.data.user.id, name: 'bot' } });
    expect(key.status).toBe(201);
    const created = key.json.data.key;
    expect(created).toMatchObject({ name: 'bot', user: 'support', id: expect.any(String) });
    expect(created.key.startsWith(created.prefix)).toBe(true);

    await server.sendMail({
      from: 'customer@example.com',
      to: 'help@team.example',
      subject: 'Help!',
      text: 'x',
    });
    const emails = await server.api('/emails?account=help@team.example', { key: created.key });
    expect(emails.status).toBe(200);
    expect(emails.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['Help!']);

    const keys = await admin('/keys?user=support');
    expect(keys.json.data.keys).toHaveLength(1);
    expect(keys.json.data.keys[0]).toMatchObject({ id: created.id, prefix: created.prefix });
    expect(keys.json.data.keys[0].key).toBeUndefined();
    expect(JSON.stringify(keys.json)).not.toContain(created.key);

    const inboxes = await admin('/inboxes?user=support');
    expect(inboxes.json.data.inboxes.map((i: { address: string }) => i.address)).toEqual([
      'help@team.example',
    ]);
    expect((await admin('/users')).json.data.users.map((u: { name: string }) => u.name)).toContain('support');
  });

  it('revokes a key: the next request with it is 401', async () => {
    const created = (await admin('/keys', { body: { user: 'support' } })).json.data.key;
    expect((await server.api('/accounts', { key: created.key })).status).toBe(200);
    const revoked = await admin(`/keys/${created.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(200);
    expect((await server.api('/accounts', { key: created.key })).status).toBe(401);
    expect((await admin(`/keys/${created.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses inboxes that cannot exist', async () => {
    const cases = [
      { address: 'x@not-hosted.example', user: 'support' },
      { address: 'not-an-address', user: 'support' },
      { address: 'tagged+x@team.example', user: 'support' },
    ];
    for (const body of cases) {
      const res = await admin('/inboxes', { body });
      expect(res.status, body.address).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
    }
    expect(
      (await admin('/inboxes', { body: { address: 'help@team.example', user: 'support' } })).status,
    ).toBe(409);
    expect((await admin('/inboxes', { body: { address: 'new@team.example', user: 'ghost' } })).status).toBe(
      404,
    );
    expect((await admin('/users', { body: { name: 'support' } })).status).toBe(409);
    expect((await admin('/users', { body: { name: 'bad name!' } })).status).toBe(400);
    expect((await admin('/keys', { body: { user: 'ghost' } })).status).toBe(404);
  });

  it('removes an inbox: its address then gets 550 5.1.1', async () => {
    expect((await admin('/domains/team.example', { method: 'DELETE' })).status).toBe(409);
    expect((await admin('/inboxes/help@team.example', { method: 'DELETE' })).status).toBe(200);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    const result = await smtp.send(
      'customer@example.com',
      ['help@team.example'],
      rawMessage({ from: 'customer@example.com', to: 'help@team.example', subject: 'Gone?' }),
    );
    await smtp.close();
    expect(result.rcpt[0]).toMatchObject({ code: 550 });
    expect(result.rcpt[0]!.text).toMatch(/^5\.1\.1/);
    expect((await admin('/inboxes/help@team.example', { method: 'DELETE' })).status).toBe(404);
  });

  it('removes a domain without inboxes, then its mail is relay-denied', async () => {
    expect((await admin('/domains/team.example', { method: 'DELETE' })).status).toBe(200);
    const smtp = await openSmtp(server.mailroom.smtp.port);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<a@example.com>');
    const rcpt = await smtp.command('RCPT TO:<help@team.example>');
    await smtp.close();
    expect(rcpt.code).toBe(550);
    expect(rcpt.text).toMatch(/^5\.7\.1/);
    expect((await admin('/domains/team.example', { method: 'DELETE' })).status).toBe(404);
  });

  it('removes a user with its keys and inboxes', async () => {
    const user = (await admin('/users', { body: { name: 'temp' } })).json.data.user;
    const key = (await admin('/keys', { body: { user: 'temp' } })).json.data.key.key;
    expect((await admin(`/users/${user.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await server.api('/accounts', { key })).status).toBe(401);
    expect((await admin(`/users/${user.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});
