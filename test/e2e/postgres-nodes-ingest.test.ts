import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpLoadConnection } from '../bench/smtp-client.js';
import { startCluster } from '../helpers/nodes.js';
import type { Cluster } from '../helpers/nodes.js';
import { eventually } from '../helpers/server.js';
import { rawMessage } from '../helpers/smtp-session.js';
import { testPostgres } from '../helpers/test-postgres.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 27's proof, at its size: 3,000 messages over SMTP spread over three `serve` processes,
// one SIGKILLed a third of the way through.
const MESSAGES = 3000;
const KILL_AFTER = 1000;
/** Four persistent connections a node at the start, as a few MTAs would hold. */
const CLIENTS = 12;
const FROM = 'sender@example.com';
const ID = /^<?m(\d+)@ingest\.nodes\.test>?$/;

/** What the senders saw: a 250 for the message, or an attempt cut or refused (then retried on the next node). */
interface Sent {
  acknowledged: Set<number>;
  /** Attempts that ended without a 250, by message. */
  unacknowledged: Map<number, number>;
  /** Messages acknowledged by the node that was killed, before its kill. */
  byVictim: number;
}

describe('SMTP ingest over three nodes on one PostgreSQL, one killed mid-run', { timeout: 600_000 }, () => {
  let cluster: Cluster;
  let hooks: WebhookReceiver;
  beforeAll(async () => {
    const databaseUrl = await (await testPostgres()).createDatabase();
    cluster = await startCluster(databaseUrl, 3);
    hooks = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await cluster?.stop();
    await hooks?.close();
  });

  /**
   * CLIENTS senders take the messages in turn, each starting on node `c % 3`. A send that ends
   * without a 250 (the node killed under it, a refused connection) is counted and sent again on
   * the next node, as an MTA tries its next MX; once the `KILL_AFTER`th 250 is in, node 2 is
   * SIGKILLed while the others keep sending.
   */
  async function sendAll(messages: Buffer[]): Promise<Sent & { killedAt: number }> {
    const victim = cluster.nodes[1]!;
    const sent: Sent = { acknowledged: new Set(), unacknowledged: new Map(), byVictim: 0 };
    let killed: Promise<number> | undefined;
    let next = 0;
    const client = async (c: number) => {
      let at = c % cluster.nodes.length;
      let connection: SmtpLoadConnection | null = null;
      let pending: number | null = null;
      while (pending !== null || next < messages.length) {
        const i: number = pending ?? next++;
        pending = i;
        const node = cluster.nodes[at]!;
        try {
          connection ??= await SmtpLoadConnection.open(node.smtpPort);
          await connection.send(FROM, cluster.inbox, messages[i]!);
          sent.acknowledged.add(i);
          pending = null;
          if (node === victim && !killed) sent.byVictim++;
          if (sent.acknowledged.size === KILL_AFTER) killed = victim.stop('SIGKILL').then(() => Date.now());
        } catch {
          const failures = (sent.unacknowledged.get(i) ?? 0) + 1;
          sent.unacknowledged.set(i, failures);
          if (failures > 10) throw new Error(`message ${i} refused ${failures} times`);
          await connection?.close();
          connection = null;
          at = (at + 1) % cluster.nodes.length;
        }
      }
      await connection?.close();
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    expect(killed, 'the kill came before the last message').toBeDefined();
    return { ...sent, killedAt: await killed! };
  }

  /** Rows in `messages` by message number. */
  async function storedCounts(): Promise<Map<number, number>> {
    const rows = await cluster.query<{ message_id: string; n: string }>(
      'SELECT message_id, count(*) AS n FROM messages GROUP BY message_id',
    );
    const counts = new Map<number, number>();
    for (const row of rows) {
      const match = ID.exec(row.message_id);
      expect(match, `a row that was never sent: ${row.message_id}`).not.toBeNull();
      counts.set(Number(match![1]), Number(row.n));
    }
    return counts;
  }

  it('stores every acknowledged message once and sends one email.received webhook for each row', async () => {
    const hook = await cluster.nodes[0]!.api('/webhooks', {
      body: { url: hooks.url, events: ['email.received'] },
    });
    expect(hook.status, JSON.stringify(hook.json)).toBe(201);
    const messages = Array.from({ length: MESSAGES }, (_, i) =>
      Buffer.from(
        rawMessage({
          from: FROM,
          to: cluster.inbox,
          subject: `Message ${i}`,
          body: `Body of message ${i}`,
          messageId: `<m${i}@ingest.nodes.test>`,
        }),
      ),
    );

    const started = Date.now();
    const sent = await sendAll(messages);
    const seconds = (Date.now() - started) / 1000;
    // The kill cut the connections held to node 2: their next send at least ended without a 250.
    expect(sent.byVictim).toBeGreaterThan(0);
    expect(sent.unacknowledged.size).toBeGreaterThan(0);
    // Every message got its 250 in the end, from a node still running for the retried ones.
    expect(sent.acknowledged.size).toBe(MESSAGES);

    const stored = await storedCounts();
    const missing = messages.map((_, i) => i).filter((i) => !stored.has(i));
    expect(missing.length, `acknowledged but not stored: ${missing.slice(0, 10).join(', ')}`).toBe(0);
    // Stored once, but a message whose attempt was cut after the node had committed it and
    // before its 250 reached the sender, who then sent it again to another node (SMTP's
    // at-least-once: the first copy was never acknowledged). At most one row per attempt.
    const twice = [...stored].filter(([, n]) => n > 1);
    for (const [i, n] of twice) {
      expect(sent.unacknowledged.has(i), `message ${i} stored ${n} times, every attempt acknowledged`).toBe(
        true,
      );
      expect(n).toBeLessThanOrEqual(1 + sent.unacknowledged.get(i)!);
    }
    const rows = [...stored.values()].reduce((a, b) => a + b, 0);
    console.log(
      `${MESSAGES} messages in ${seconds.toFixed(0)} s: ${sent.byVictim} acknowledged by the killed node, ` +
        `${sent.unacknowledged.size} sent again after an attempt without a 250, ` +
        `${twice.length} of those stored twice; ${rows} rows`,
    );

    // One email.received delivery for each row, whichever node committed it; the dispatchers'
    // claims are exclusive, so a POST twice is only one the killed node had made and not yet
    // recorded, made again by another node once its lease ran out (webhook timeout + 15 s).
    const deliveredFor = () => {
      const ids = new Map<number, Set<string>>();
      for (const r of hooks.delivered) {
        const i = Number(ID.exec(r.json.data.email.messageId as string)![1]);
        ids.set(i, (ids.get(i) ?? new Set()).add(r.id));
      }
      return ids;
    };
    await eventually(() => [...deliveredFor().values()].reduce((a, s) => a + s.size, 0) >= rows, 300_000);
    const delivered = deliveredFor();
    for (const [i, n] of stored) expect(delivered.get(i)?.size, `deliveries of message ${i}`).toBe(n);
    const posts = new Map<string, number[]>();
    for (const r of hooks.requests) posts.set(r.id, [...(posts.get(r.id) ?? []), r.receivedAt]);
    for (const [id, times] of posts) {
      if (times.length === 1) continue;
      expect(times.length, `webhook ${id} posted ${times.length} times`).toBe(2);
      expect(times[0], `webhook ${id} posted twice, the first after the kill`).toBeLessThanOrEqual(
        sent.killedAt,
      );
    }
    expect(hooks.requests.every((r) => r.answered === 200)).toBe(true);
    const again = [...posts.values()].filter((times) => times.length > 1).length;
    console.log(`${hooks.requests.length} webhook POSTs, ${again} made again after the killed node's lease`);
  });
});
