import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import { postForm } from '../helpers/dashboard-forms.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { startCluster } from '../helpers/nodes.js';
import type { Answer, Cluster, Node } from '../helpers/nodes.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

const PAIRS = 12;
/** MAILROOM_RATE_LIMIT of every node: the twin sends and their checks stay under it. */
const LIMIT = 40;

/** A call to a node's API with `key`, and an Idempotency-Key when given. */
async function call(
  node: Node,
  key: string,
  route: string,
  init: { body?: unknown; idempotencyKey?: string } = {},
): Promise<Answer & { headers: Headers }> {
  const res = await fetch(`${node.baseUrl}/api/v1${route}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(init.idempotencyKey ? { 'idempotency-key': init.idempotencyKey } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

describe('two nodes started together on one empty PostgreSQL', { timeout: 300_000 }, () => {
  let capture: CaptureServer;
  let cluster: Cluster;
  beforeAll(async () => {
    capture = await startCaptureServer();
    const databaseUrl = await (await testPostgres()).createDatabase();
    cluster = await startCluster(
      databaseUrl,
      2,
      { MAILROOM_OUTBOUND: 'relay', MAILROOM_RELAY_URL: capture.url, MAILROOM_RATE_LIMIT: String(LIMIT) },
      { atOnce: true },
    );
  });
  afterAll(async () => {
    await cluster?.stop();
    await capture?.close();
  });

  /** A new API key of the bootstrap user: its own rate window. */
  const newKey = async (name: string): Promise<string> => {
    const made = await cluster.nodes[0]!.admin('/keys', { body: { user: 'default', name } });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    return made.json.data.key.key as string;
  };

  it('both start, and the first user, inbox and key are made once', async () => {
    expect(cluster.running()).toHaveLength(2);
    for (const node of cluster.nodes) expect((await node.api('/accounts')).status).toBe(200);
    const users = await cluster.nodes[1]!.admin('/users');
    expect(users.json.data.users.map((u: { name: string }) => u.name)).toEqual(['default']);
    const inboxes = await cluster.nodes[0]!.admin('/inboxes');
    expect(inboxes.json.data.inboxes.map((i: { address: string }) => i.address)).toEqual([cluster.inbox]);
  });

  it('sends twin requests with one Idempotency-Key, one to each node at once, once: both get the same answer', async () => {
    const pairs = await Promise.all(
      Array.from({ length: PAIRS }, (_, i) => {
        const body = {
          from: cluster.inbox,
          to: `twin${i}@example.com`,
          subject: `Twin ${i}`,
          text: `Body ${i}`,
        };
        return Promise.all(
          cluster.nodes.map((node) =>
            call(node, cluster.key, '/emails/send', { body, idempotencyKey: `twin-${i}` }),
          ),
        );
      }),
    );
    for (const pair of pairs) {
      expect(pair.map((a) => a.status)).toEqual([200, 200]);
      expect(pair[1]!.json).toEqual(pair[0]!.json);
    }
    const ids = pairs.map((pair) => pair[0]!.json.data.messageId as string);
    const capturedFor = (id: string) =>
      capture.messages.filter((m) => m.raw.toString('utf8').includes(`Message-ID: ${id}`)).length;
    await eventually(() => ids.every((id) => capturedFor(id) > 0), 120_000);
    // Every send's copy in Sent and delivered: a second send of a twin would have been relayed by now.
    const observer = await newKey('observer');
    const settled = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const res = await call(
        cluster.nodes[1]!,
        observer,
        `/emails?account=${cluster.inbox}&folder=Sent&limit=100`,
      );
      const emails = res.status === 200 ? (res.json.data.emails as { delivery: { status: string }[] }[]) : [];
      return emails.length >= PAIRS && emails.every((e) => e.delivery.every((d) => d.status === 'delivered'));
    };
    await eventually(settled, 120_000);
    const sent = await call(
      cluster.nodes[0]!,
      observer,
      `/emails?account=${cluster.inbox}&folder=Sent&limit=100`,
    );
    expect(sent.json.data.emails).toHaveLength(PAIRS);
    expect(ids.map(capturedFor)).toEqual(ids.map(() => 1));
    expect(capture.messages).toHaveLength(PAIRS);
  });

  it('lets exactly MAILROOM_RATE_LIMIT requests of a key through in a minute, spread over both nodes', async () => {
    const key = await newKey('counted');
    const answers = await Promise.all(
      Array.from({ length: LIMIT + 20 }, (_, i) => call(cluster.nodes[i % 2]!, key, '/accounts')),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('checks at most 4 passwords of one name in the sign-in window however the attempts are spread over the nodes', async () => {
    const made = await cluster.nodes[1]!.admin('/users', {
      body: { name: 'signer', password: 'the right password' },
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postForm(cluster.nodes[i % 2]!.baseUrl, '/sign-in', { name: 'signer', password: `wrong ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });
});
