// Engines: SQLite only: POST /events/token and GET /events?token= as HTTP (the stream opened without the key, the key never in a URL, 401 and 403, the stream ended at a revoke; a second node, both on PostgreSQL); what a token holds and whom it stands for is test/mailbox/stream-token.test.ts, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStreamToken, verifyStreamToken } from '../../src/mailbox/events/stream-token.js';
import { addLocalInbox } from '../../src/mailbox/operations/admin.js';
import { startSecondNode } from '../helpers/second-node.js';
import type { SecondNode } from '../helpers/second-node.js';
import { openStream } from '../helpers/sse-client.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

type Stream = Awaited<ReturnType<typeof openStream>>;

/** Whether the server ends the stream within `patienceMs` (it re-checks access every 200 ms here). */
async function ends(stream: Stream, patienceMs = 15_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const drained = (async () => {
    while ((await stream.next()) !== null);
    return true;
  })();
  const patience = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), patienceMs)));
  const ended = await Promise.race([drained, patience]);
  clearTimeout(timer);
  if (!ended) stream.close();
  return ended;
}

describe('POST /events/token and GET /events?token=', { timeout: 60_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    // Many refusals on purpose: the failed-authentication throttle must not answer them first.
    server = await startServer({
      eventStreamAccessCheckMs: 200,
      eventStreamHeartbeatMs: 300,
      authFailureLimit: 1000,
    });
  });
  afterAll(async () => server.stop());

  const tokenFor = async (key: string, body?: object, query = '') => {
    const res = await server.api(`/events/token${query}`, { method: 'POST', key, body });
    expect(res.status, res.text).toBe(200);
    return res.json.data as { token: string; expiresAt: string; account: string | null };
  };
  const mail = (to: string, subject: string) =>
    server.sendMail({ from: 'sender@example.com', to, subject, text: `${subject} body` });

  it('answers a token valid for about a minute that opens the stream without the key', async () => {
    const before = Date.now();
    const token = await tokenFor(server.key);
    expect(token.account).toBeNull();
    const ttl = Date.parse(token.expiresAt) - before;
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
    expect(token.token).not.toContain(server.key);

    const stream = await openStream(server, `?token=${encodeURIComponent(token.token)}`, { key: null });
    try {
      await mail(server.inbox, 'Over a token');
      const event = await stream.nextEvent();
      expect(event.json.type).toBe('email.received');
      expect(event.json.data.email.subject).toBe('Over a token');
    } finally {
      stream.close();
    }
  });

  it('limits the stream to the inbox the token names, given in the body or the query', async () => {
    const dave = await server.addUser('dave');
    const second = await addLocalInbox(server.mailroom.deps, 'dave-two@mailroom.test', dave.userId);
    const fromBody = await tokenFor(dave.key, { account: dave.inbox });
    expect(fromBody.account).toBe(dave.inbox);
    const fromQuery = await tokenFor(dave.key, undefined, `?account=${encodeURIComponent(dave.inbox)}`);
    expect(fromQuery.account).toBe(dave.inbox);

    // Not dave's inbox: refused when the token is asked for.
    const foreign = await server.api('/events/token', {
      method: 'POST',
      key: dave.key,
      body: { account: server.inbox },
    });
    expect(foreign.status).toBe(403);
    // Dave's other inbox: his key could stream it, this token cannot.
    const otherInbox = await server.api(
      `/events?token=${encodeURIComponent(fromBody.token)}&account=${encodeURIComponent(second.address)}`,
      { key: null },
    );
    expect(otherInbox.status).toBe(403);

    const stream = await openStream(server, `?token=${encodeURIComponent(fromBody.token)}`, { key: null });
    try {
      await mail(second.address, 'Not in this stream');
      await mail(dave.inbox, 'For dave');
      expect((await stream.nextEvent()).json.data.email.subject).toBe('For dave');
    } finally {
      stream.close();
    }
  });

  it('never takes the API key in the URL, and opens nothing but the stream', async () => {
    const keyInUrl = await server.api(`/events?token=${encodeURIComponent(server.key)}`, { key: null });
    expect(keyInUrl.status).toBe(401);
    expect(keyInUrl.text).not.toContain(server.key);
    for (const name of ['key', 'api_key', 'access_token', 'apiKey']) {
      const res = await server.api(`/events?${name}=${encodeURIComponent(server.key)}`, { key: null });
      expect(res.status, name).toBe(401);
    }
    const { token } = await tokenFor(server.key);
    const acc = `account=${encodeURIComponent(server.inbox)}`;
    expect(
      (await server.api(`/emails?${acc}&token=${encodeURIComponent(token)}`, { key: null })).status,
    ).toBe(401);
    expect((await server.api(`/emails?${acc}`, { key: token })).status).toBe(401);
    expect((await server.api(`/events`, { key: token })).status).toBe(401);
  });

  it('answers 401 for a token that expired', async () => {
    const deps = server.mailroom.deps;
    const claims = verifyStreamToken(deps, (await tokenFor(server.key)).token)!;
    const expired = signStreamToken(deps, { ...claims, expires: Math.floor(Date.now() / 1000) - 1 });
    expect((await server.api(`/events?token=${encodeURIComponent(expired)}`, { key: null })).status).toBe(
      401,
    );
  });

  it('ends a token-opened stream when its key is revoked, and a token of a revoked key opens none', async () => {
    const erin = await server.addUser('erin');
    const { token } = await tokenFor(erin.key);
    const spare = await tokenFor(erin.key);
    const stream = await openStream(server, `?token=${encodeURIComponent(token)}`, { key: null });
    await mail(erin.inbox, 'Before revoking');
    expect((await stream.nextEvent()).json.data.email.subject).toBe('Before revoking');
    const [key] = await server.mailroom.deps.store.apiKeys.list(erin.userId);
    await server.mailroom.deps.store.apiKeys.revoke(key!.id);
    expect(await ends(stream)).toBe(true);
    const after = await server.api(`/events?token=${encodeURIComponent(spare.token)}`, { key: null });
    expect(after.status).toBe(401);
  });
});

// A token carries its own proof: another node with the same secret and database accepts it.
describe('a stream token on another node', { timeout: 60_000 }, () => {
  let nodeA: TestServer;
  let nodeB: SecondNode;
  beforeAll(async () => {
    const databaseUrl = await (await testPostgres()).createDatabase();
    const secret = 'b'.repeat(64);
    nodeA = await startServer({ databaseUrl, secret });
    nodeB = await startSecondNode(databaseUrl, secret);
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  it('opens a stream on node B with a token node A made', async () => {
    const made = await nodeA.api('/events/token', { method: 'POST' });
    const res = await fetch(
      `http://127.0.0.1:${nodeB.mailroom.http.port}/api/v1/events?token=${encodeURIComponent(made.json.data.token)}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    await res.body?.cancel();
  });
});
