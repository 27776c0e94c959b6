import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { mailroom } from '../helpers/cli.js';
import { SECRET, startCluster } from '../helpers/nodes.js';
import type { Cluster } from '../helpers/nodes.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

// The size: before deliveries were claimed, 30 sends reached the relay 58 times.
const SENDS = 300;
/** Requests in flight at once, as an agent's workers would keep them. */
const IN_FLIGHT = 30;

describe('API sends spread over three nodes on one PostgreSQL', { timeout: 600_000 }, () => {
  let capture: CaptureServer;
  let cluster: Cluster;
  let databaseUrl: string;
  beforeAll(async () => {
    capture = await startCaptureServer();
    databaseUrl = await (await testPostgres()).createDatabase();
    cluster = await startCluster(databaseUrl, 3, {
      MAILROOM_OUTBOUND: 'relay',
      MAILROOM_RELAY_URL: capture.url,
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    await capture?.close();
  });

  /** How many times the relay was handed each Message-ID. */
  const captured = () => {
    const counts = new Map<string, number>();
    for (const m of capture.messages) {
      const id = /^Message-ID: (.+)$/im.exec(m.raw.toString('latin1'))?.[1]?.trim() ?? '';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  it('hands each message to the relay exactly once', async () => {
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < SENDS; i = next++) {
          const node = cluster.nodes[i % cluster.nodes.length]!;
          const res = await node.api('/emails/send', {
            method: 'POST',
            body: { from: cluster.inbox, to: `r${i}@example.com`, subject: `Send ${i}`, text: `Body ${i}` },
          });
          expect(res.status, JSON.stringify(res.json)).toBe(200);
          ids.push(res.json.data.messageId as string);
        }
      }),
    );
    await eventually(() => {
      const counts = captured();
      return ids.every((id) => counts.has(id));
    }, 300_000);
    // Every delivery settled, read off the database (the API's rate limit would pace a poll of
    // 300 rows): a node that had also taken a message would have handed it over by then.
    await eventually(async () => {
      const rows = await cluster.query<{ n: string }>(
        "SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'",
      );
      return Number(rows[0]!.n) === SENDS;
    }, 300_000);
    const counts = captured();
    expect(ids.filter((id) => counts.get(id) !== 1).map((id) => `${id}: ${counts.get(id)}`)).toEqual([]);
    expect(capture.messages).toHaveLength(SENDS);
  });

  it('lists the nodes by their MAILROOM_NODE_ID, over the admin API and mailroom nodes, and logs under it', async () => {
    const listed = await cluster.nodes[1]!.admin('/nodes');
    expect(listed.status).toBe(200);
    const ids = (listed.json.data.nodes as { id: string; version: string; lastSeenAt: string }[]).map(
      (n) => n.id,
    );
    expect(ids.sort()).toEqual(['node-1', 'node-2', 'node-3']);
    const cli = await mailroom(['nodes', '--json', '--database-url', databaseUrl], {
      MAILROOM_SECRET: SECRET,
    });
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    expect((JSON.parse(cli.stdout).nodes as { id: string }[]).map((n) => n.id).sort()).toEqual(ids);
    for (const node of cluster.nodes) {
      const started = node
        .stdout()
        .split('\n')
        .find((line) => line.includes('"msg":"mailroom started"'))!;
      expect(JSON.parse(started).node).toBe(node.id);
    }
  });
});
