// Engines: SQLite only: what a revoked key does to a waiting HTTP request, a door rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailroom } from '../helpers/cli.js';
import { callTool, connect as connectMcp } from '../helpers/mcp.js';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const TOKEN = 'admin-token-for-tests-0123456789';

/**
 * A wait for mail whose key is revoked ends with `unauthorized` (contract 13), wherever the revoke
 * comes from, and is never answered with mail that arrived after it. Every wait here asks for
 * 300 s: one that outlives its key's revocation shows as a test that does not end.
 */
describe('a wait for mail loses its key', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    // The access checks run every 200 ms here, so a revoke is seen soon without a fixed wait.
    server = await startServer({ adminToken: TOKEN, eventStreamAccessCheckMs: 200 });
  });
  afterAll(async () => server.stop());

  const waiting = () => server.mailroom.deps.waiters!.size;
  const keyIdOf = async (userId: number) => (await server.mailroom.deps.store.apiKeys.list(userId))[0]!.id;
  const revokeByAdminApi = async (userId: number) => {
    const res = await server.api(`/admin/v1/keys/${await keyIdOf(userId)}`, { method: 'DELETE', key: TOKEN });
    expect(res.status).toBe(200);
  };
  const revokeByCli = async (userId: number) => {
    const revoked = await mailroom(['key', 'revoke', await keyIdOf(userId)], server.cliEnv);
    expect(revoked.code, revoked.stderr).toBe(0);
  };
  const mail = (to: string, subject: string) =>
    server.sendMail({ from: 'sender@example.com', to, subject, text: `${subject} body` });

  // Mail after the revoke shows it is never handed out; none at all, that the wait ends by itself.
  const cases = [
    { how: 'through the admin API, mail arriving after', revoke: revokeByAdminApi, mailAfter: true },
    { how: 'by the CLI in another process, no mail coming', revoke: revokeByCli, mailAfter: false },
  ];
  cases.forEach(({ how, revoke, mailAfter }, i) => {
    it(`GET /emails?wait= answers 401 when its key is revoked ${how}`, async () => {
      const user = await server.addUser(`http-revoke-${i}`, `http-revoke-${i}`);
      const pending = server.api(`/emails?account=${user.inbox}&wait=300`, { key: user.key });
      await eventually(() => waiting() === 1);
      await revoke(user.userId);
      if (mailAfter) await mail(user.inbox, 'After the revoke');
      const res = await pending;
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('unauthorized');
      expect(res.text).not.toContain('After the revoke');
    });

    it(`MCP wait_for_email answers a tool error unauthorized when its key is revoked ${how}`, async () => {
      const user = await server.addUser(`mcp-revoke-${i}`, `mcp-revoke-${i}`);
      const client = await connectMcp(server, user.key);
      try {
        const pending = callTool(client, 'wait_for_email', { account: user.inbox, timeout: 300 });
        await eventually(() => waiting() === 1);
        await revoke(user.userId);
        if (mailAfter) await mail(user.inbox, 'After the revoke');
        const answer = await pending;
        expect(answer.error?.code).toBe('unauthorized');
        expect(JSON.stringify(answer)).not.toContain('After the revoke');
      } finally {
        await client.close();
      }
    });
  });

  it('GET /emails?wait= answers 403 when its inbox is removed, and a valid key keeps waiting', async () => {
    const grace = await server.addUser('grace-wait-revoke', 'grace-wait-revoke');
    const heidi = await server.addUser('heidi-wait-revoke', 'heidi-wait-revoke');
    const removed = server.api(`/emails?account=${grace.inbox}&wait=300`, { key: grace.key });
    const kept = server.api(`/emails?account=${heidi.inbox}&wait=300`, { key: heidi.key });
    await eventually(() => waiting() === 2);
    const res = await server.api(`/admin/v1/inboxes/${grace.inbox}`, { method: 'DELETE', key: TOKEN });
    expect(res.status).toBe(200);
    expect((await removed).status).toBe(403);
    // Many access checks have passed by now: the other wait is still there, and gets its mail.
    expect(waiting()).toBe(1);
    await mail(heidi.inbox, 'Still yours');
    const page = await kept;
    expect(page.status).toBe(200);
    expect(page.json.data.emails[0].subject).toBe('Still yours');
  });
});

describe('a wait for mail whose key is revoked between two access checks', { timeout: 60_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    // No periodic check comes during this test: the mail's arrival is what must see the revoke.
    server = await startServer({ adminToken: TOKEN, eventStreamAccessCheckMs: 600_000 });
  });
  afterAll(async () => server.stop());

  it('is answered 401, not with the mail that arrived after the revoke', async () => {
    const ivan = await server.addUser('ivan-wait-revoke', 'ivan-wait-revoke');
    const pending = server.api(`/emails?account=${ivan.inbox}&wait=300`, { key: ivan.key });
    await eventually(() => server.mailroom.deps.waiters!.size === 1);
    const keyId = (await server.mailroom.deps.store.apiKeys.list(ivan.userId))[0]!.id;
    expect((await server.api(`/admin/v1/keys/${keyId}`, { method: 'DELETE', key: TOKEN })).status).toBe(200);
    await server.sendMail({
      from: 'sender@example.com',
      to: ivan.inbox,
      subject: 'After the revoke',
      text: 'x',
    });
    const res = await pending;
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('After the revoke');
  });
});
