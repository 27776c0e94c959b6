import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { mailroom } from '../helpers/cli.js';
import { SECRET, startCluster } from '../helpers/nodes.js';
import type { Cluster } from '../helpers/nodes.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

// The issue measured 300 sends; 60 keep this within CI's two cores and still showed 58 relay
// hand-overs for 30 sends before deliveries were claimed.
const SENDS = 60;

describe('API sends spread over three nodes on one PostgreSQL', { timeout: 300_000 }, () => {
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

  it('hands each message to the relay exactly once', async () => {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: SENDS }, async (_, i) => {
        const node = cluster.nodes[i % cluster.nodes.length]!;
        const res = await node.api('/emails/send', {
          method: 'POST',
          body: { from: cluster.inbox, to: `r${i}@example.com`, subject: `Send ${i}`, text: `Body ${i}` },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(200);
        ids.push(res.json.data.messageId as string);
      }),
    );
    const capturedFor = (id: string) =>
      capture.messages.filter((m) => m.raw.toString('utf8').includes(`Message-ID: ${id}`)).length;
    await eventually(() => ids.every((id) => capturedFor(id) > 0), 120_000);
    // Every row settled: a node that also took a message would have handed it over by now.
    const settled = async () => {
      // Once a second at most: the key's API rate limit is 600 requests a minute.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const res = await cluster.nodes[0]!.api(`/emails?account=${cluster.inbox}&folder=Sent&limit=100`);
      const emails = res.status === 200 ? (res.json.data.emails as { delivery: { status: string }[] }[]) : [];
      return (
        emails.length === SENDS && emails.every((e) => e.delivery.every((d) => d.status === 'delivered'))
      );
    };
    await eventually(settled, 120_000);
    expect(ids.map(capturedFor)).toEqual(ids.map(() => 1));
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
