import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailroom } from '../../src/mailroom.js';
import { startSecondNode } from '../helpers/second-node.js';
import type { SecondNode } from '../helpers/second-node.js';
import { openStream } from '../helpers/sse-client.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { openSmtp, rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';

// Two nodes on one PostgreSQL: mail filed by one must wake what listens on the other.
describe('events committed by another node', { timeout: 60_000 }, () => {
  let nodeA: TestServer;
  let nodeB: Mailroom;
  let second: SecondNode;
  beforeAll(async () => {
    const databaseUrl = await (await testPostgres()).createDatabase();
    const secret = 'a'.repeat(64);
    // A quiet stream re-reads only at its heartbeat, and node A's event tail reads the table on its
    // own clock only every five minutes here: within a test, only PostgreSQL's NOTIFY can wake it.
    nodeA = await startServer({ databaseUrl, secret, eventStreamHeartbeatMs: 300_000, eventTailMs: 300_000 });
    second = await startSecondNode(databaseUrl, secret);
    nodeB = second.mailroom;
  });
  afterAll(async () => {
    await second?.stop();
    await nodeA?.stop();
  });

  async function deliverThroughB(subject: string): Promise<void> {
    const smtp = await openSmtp(nodeB.smtp.port);
    try {
      const raw = rawMessage({ from: 'alice@example.com', to: nodeA.inbox, subject });
      expect((await smtp.send('alice@example.com', [nodeA.inbox], raw)).data?.code).toBe(250);
    } finally {
      await smtp.close();
    }
  }

  it('answers a long-poll on one node with mail the other node received', async () => {
    // A 300 s wait: without the wake it would be answered only by its own last look at the timeout,
    // long after this test's 60 s.
    const waiting = nodeA.api(`/emails?account=${encodeURIComponent(nodeA.inbox)}&wait=300`);
    await expect.poll(() => nodeA.mailroom.deps.waiters?.size, { timeout: 30_000 }).toBe(1);
    await deliverThroughB('Filed by node B');
    const page = await waiting;
    expect(page.status).toBe(200);
    expect(page.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['Filed by node B']);
  });

  it("streams the other node's events on this node's event stream", async () => {
    const stream = await openStream(nodeA, `?account=${encodeURIComponent(nodeA.inbox)}`);
    try {
      await deliverThroughB('Streamed from node B');
      const event = await stream.nextEvent();
      expect(event.json.type).toBe('email.received');
      expect(event.json.data.email.subject).toBe('Streamed from node B');
    } finally {
      stream.close();
    }
  });

  it('still hears the other node after its listening connection was cut', async () => {
    const stream = await openStream(nodeA, `?account=${encodeURIComponent(nodeA.inbox)}`);
    try {
      const cut = await nodeA.mailroom.deps.store.db.rawAll<{ cut: boolean }>(
        `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
      );
      // Node A's listener and node B's: both connections were cut.
      expect(cut.length).toBeGreaterThanOrEqual(2);
      await deliverThroughB('After the cut');
      const event = await stream.nextEvent();
      expect(event.json.data.email.subject).toBe('After the cut');
    } finally {
      stream.close();
    }
  });
});
