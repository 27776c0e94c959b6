// Engines: SQLite only: what a revoked key does to an open event stream, a door rule; postgres-doors streams an event on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
import { mailroom } from '../helpers/cli.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openStream } from '../helpers/sse-client.js';

const TOKEN = 'admin-token-for-tests-0123456789';

type Stream = Awaited<ReturnType<typeof openStream>>;

/**
 * 'ended' when the server ends the stream, 'open' when it is still open after a generous wait
 * (the server re-checks every 200 ms here, so this is only a bound against hanging forever).
 */
async function endOf(stream: Stream, patienceMs = 15_000): Promise<'ended' | 'open'> {
  let timer: NodeJS.Timeout | undefined;
  const drained = (async () => {
    while ((await stream.next()) !== null);
    return 'ended' as const;
  })();
  const patience = new Promise<'open'>((resolve) => (timer = setTimeout(() => resolve('open'), patienceMs)));
  const result = await Promise.race([drained, patience]);
  clearTimeout(timer);
  if (result === 'open') {
    stream.close();
    await drained.catch(() => undefined);
  }
  return result;
}

describe('an open GET /events stream loses its access', { timeout: 60_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      adminToken: TOKEN,
      eventStreamAccessCheckMs: 200,
      eventStreamHeartbeatMs: 300,
    });
  });
  afterAll(async () => server.stop());

  const mail = (to: string, subject: string) =>
    server.sendMail({ from: 'sender@example.com', to, subject, text: `${subject} body` });
  const admin = (path: string, method: string) => server.api(`/admin/v1${path}`, { method, key: TOKEN });
  const keyIdOf = async (userId: number) => (await server.mailroom.deps.store.apiKeys.list(userId))[0]!.id;

  it('ends when the key is revoked by the CLI in another process, and the key no longer opens one', async () => {
    const carol = await server.addUser('carol');
    const stream = await openStream(server, '', { key: carol.key });
    await mail(carol.inbox, 'Before revoking');
    expect((await stream.nextEvent()).json.data.email.subject).toBe('Before revoking');

    const revoked = await mailroom(['key', 'revoke', await keyIdOf(carol.userId)], {
      ...server.cliEnv,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await endOf(stream)).toBe('ended');

    const again = await server.api('/events', { key: carol.key });
    expect(again.status).toBe(401);
  });

  it('ends when the user is removed', async () => {
    const dan = await server.addUser('dan');
    const stream = await openStream(server, `?account=${dan.inbox}`, { key: dan.key });
    expect((await stream.next())?.comment).toBe('connected');
    expect((await admin(`/users/${dan.userId}`, 'DELETE')).status).toBe(200);
    expect(await endOf(stream)).toBe('ended');
  });

  it('ends an account stream when that inbox is removed, while the stream of all inboxes stays', async () => {
    const erin = await server.addUser('erin');
    const second = await addLocalInbox(server.mailroom.deps, 'erin-two@mailroom.test', erin.userId);
    const scoped = await openStream(server, `?account=${second.address}`, { key: erin.key });
    const all = await openStream(server, '', { key: erin.key });
    expect((await scoped.next())?.comment).toBe('connected');

    expect((await admin(`/inboxes/${second.address}`, 'DELETE')).status).toBe(200);
    expect(await endOf(scoped)).toBe('ended');

    await mail(erin.inbox, 'Still here');
    expect((await all.nextEvent()).json.data.email.subject).toBe('Still here');
    all.close();
  });

  it('stays open while the key is valid', async () => {
    const frank = await server.addUser('frank');
    const stream = await openStream(server, '', { key: frank.key });
    // Many access checks pass in this time; the stream is still there afterwards.
    expect(await endOf(stream, 1500)).toBe('open');
  });
});
