import { execFileSync } from 'node:child_process';
import type { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCaptureServer } from '../helpers/capture-smtp.js';
import type { CaptureServer } from '../helpers/capture-smtp.js';
import { rawMessage, startDovecot } from '../helpers/dovecot.js';
import type { Dovecot } from '../helpers/dovecot.js';
import { startCluster } from '../helpers/nodes.js';
import type { Cluster, Node } from '../helpers/nodes.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

const USER = 'owner';
const ADDRESS = 'owner@example.org';

// The measure: three nodes held IMAP connections to one mailbox, and after the one
// syncing was killed 5 new messages were stored 10 times.
describe('an IMAP mailbox with three nodes on one PostgreSQL', { timeout: 300_000 }, () => {
  let dovecot: Dovecot;
  let capture: CaptureServer;
  let cluster: Cluster;
  let other: ImapFlow;
  beforeAll(async () => {
    dovecot = await startDovecot();
    dovecot.addUser(USER, `pw-${USER}-S3cret!`);
    capture = await startCaptureServer();
    other = await dovecot.client(USER);
    const databaseUrl = await (await testPostgres()).createDatabase();
    cluster = await startCluster(databaseUrl, 3);
  });
  afterAll(async () => {
    await other?.logout().catch(() => other.close());
    await cluster?.stop();
    await capture?.close();
    await dovecot?.stop();
  });

  const append = (subject: string) => other.append('INBOX', rawMessage({ subject }));

  /** Looked at once a second at most: the key's API rate limit is 600 requests a minute. */
  async function inboxSubjects(node: Node): Promise<string[] | null> {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const res = await node.api(`/emails?account=${encodeURIComponent(ADDRESS)}&folder=INBOX&limit=100`);
    if (res.status !== 200) return null;
    return (res.json.data.emails as { subject: string }[]).map((e) => e.subject).sort();
  }

  /** The nodes with an IMAP connection open to Dovecot, by their process. */
  function connectedNodes(): string[] {
    const out = execFileSync('ss', ['-Htnp', 'state', 'established', `( dport = :${dovecot.port} )`], {
      encoding: 'utf8',
    });
    return cluster.nodes.filter((n) => out.includes(`pid=${n.child.pid},`)).map((n) => n.id);
  }

  async function holders(node: Node): Promise<string[]> {
    const res = await node.admin('/nodes');
    expect(res.status).toBe(200);
    return (res.json.data.nodes as { id: string; holds: { imapInboxes: string[] } }[])
      .filter((n) => n.holds.imapInboxes.includes(ADDRESS))
      .map((n) => n.id);
  }

  it('is synced by one node, and by another once that one is killed, every message stored once', async () => {
    for (const n of [1, 2, 3]) await append(`Before ${n}`);
    const [first] = cluster.nodes;
    const connected = await first!.admin('/inboxes', {
      body: {
        address: ADDRESS,
        user: 'default',
        imap: { url: dovecot.url(USER) },
        smtp: { url: capture.url },
      },
    });
    expect(connected.status, JSON.stringify(connected.json)).toBe(201);
    const before = ['Before 1', 'Before 2', 'Before 3'];
    await eventually(
      async () => JSON.stringify(await inboxSubjects(first!)) === JSON.stringify(before),
      120_000,
    );

    const [owner] = await eventually(async () => {
      const held = await holders(first!);
      return held.length === 1 ? held : null;
    });
    // Every node has re-read the list of inboxes since the connect (each does every 5 s)...
    await eventually(async () => (await holders(first!)).length === 1 && connectedNodes().length > 0);
    // ...and only the owner talks to the mailbox.
    expect(connectedNodes()).toEqual([owner]);

    const victim = cluster.nodes.find((n) => n.id === owner)!;
    await victim.stop('SIGKILL');
    for (const n of [4, 5, 6]) await append(`After ${n}`);
    const survivor = cluster.running()[0]!;
    const all = [...before, 'After 4', 'After 5', 'After 6'].sort();
    await eventually(
      async () => JSON.stringify(await inboxSubjects(survivor)) === JSON.stringify(all),
      120_000,
    );

    const [heir] = await eventually(async () => {
      const held = await holders(survivor);
      return held.length === 1 ? held : null;
    });
    expect(heir).not.toBe(owner);
    expect(connectedNodes()).toEqual([heir]);
    // Stored once each, still, after every node has looked again.
    await eventually(async () => connectedNodes().length === 1);
    expect(await inboxSubjects(survivor)).toEqual(all);
  });
});
