// Engines: SQLite only: long-polling over HTTP (the in-process event bus wakes a waiter); postgres-doors waits for mail on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { deliverDuringWait } from '../helpers/wait.js';

const waitersOf = (server: TestServer) => server.mailroom.deps.waiters!.size;

describe('GET /emails?wait=N long-polls for mail (contract 13)', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A thousand requests from one key in a test: above the default rate limit and waits per key.
    server = await startServer({ rateLimit: 100_000, maxWaitsPerKey: 100_000 });
  });
  afterAll(() => server.stop());

  it('answers as soon as a message arrives over SMTP during the wait', async () => {
    const alice = await server.addUser('alice-wait', 'alice-wait');
    const pending = server.api(`/emails?account=${alice.inbox}&wait=30`, { key: alice.key });
    const res = await deliverDuringWait(server, pending, {
      from: 'bob@example.net',
      to: alice.inbox,
      subject: 'Arrived while waiting',
      text: 'hi',
    });
    expect(res.status).toBe(200);
    expect(res.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual([
      'Arrived while waiting',
    ]);
    expect(waitersOf(server)).toBe(0);
  });

  it('answers at once when the first page is not empty', async () => {
    const carol = await server.addUser('carol-wait', 'carol-wait');
    await server.sendMail({ from: 'bob@example.net', to: carol.inbox, subject: 'Already here', text: 'x' });
    await eventually(
      async () =>
        (await server.api(`/emails?account=${carol.inbox}`, { key: carol.key })).json.data.emails.length,
    );
    const now = await server.api(`/emails?account=${carol.inbox}&wait=300`, { key: carol.key });
    expect(now.json.data.emails[0].subject).toBe('Already here');
  });

  it('wakes only for mail that matches its filters', async () => {
    const dave = await server.addUser('dave-wait', 'dave-wait');
    const pending = server.api(`/emails?account=${dave.inbox}&wait=30&subject=Invoice`, { key: dave.key });
    await eventually(() => waitersOf(server) === 1);
    await server.sendMail({ from: 'bob@example.net', to: dave.inbox, subject: 'Lunch?', text: 'x' });
    await eventually(
      async () =>
        (await server.api(`/emails?account=${dave.inbox}`, { key: dave.key })).json.data.emails.length,
    );
    expect(waitersOf(server)).toBe(1);
    await server.sendMail({ from: 'bob@example.net', to: dave.inbox, subject: 'Invoice 42', text: 'x' });
    const res = await pending;
    expect(res.json.data.emails.map((e: { subject: string }) => e.subject)).toEqual(['Invoice 42']);
  });

  it('answers an empty page when nothing came in time', async () => {
    const erin = await server.addUser('erin-wait', 'erin-wait');
    const res = await server.api(`/emails?account=${erin.inbox}&wait=1`, { key: erin.key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ emails: [], nextCursor: null });
  });

  it('refuses a wait outside 1..300 seconds, and another user’s inbox, at once', async () => {
    for (const wait of ['0', '301', 'abc', '1.5']) {
      const res = await server.api(`/emails?account=${server.inbox}&wait=${wait}`);
      expect(res.status, wait).toBe(400);
      expect(res.json.error.code).toBe('validation_error');
      expect(res.json.error.details[0].path).toBe('wait');
    }
    const other = await server.addUser('frank-wait', 'frank-wait');
    const res = await server.api(`/emails?account=${other.inbox}&wait=30`);
    expect(res.status).toBe(403);
  });

  it(
    'holds 1,000 waiters on one server and answers them all with one delivery',
    { timeout: 240_000 },
    async () => {
      const grace = await server.addUser('grace-wait', 'grace-wait');
      const wait = (count: number) =>
        Array.from({ length: count }, () =>
          server.api(`/emails?account=${grace.inbox}&wait=300`, { key: grace.key }),
        );
      // What the waiters hold after a collection (vitest runs with --expose-gc), and per waiter
      // the growth from the first 200 to all 1,000: the first ones also pay for what is made once
      // (connection pools, code compiled on first use), which depends on what the process ran
      // before and is not what a waiter costs.
      const heldMb = () => {
        global.gc?.();
        return process.memoryUsage().heapUsed / 2 ** 20;
      };
      // Opened 200 at a time, each wave parked before the next: client and server share this
      // process, and 800 connections at once at load ~15 had some reset before they were
      // accepted (the subject is holding waiters, not a connection storm).
      const waiting: ReturnType<typeof wait> = [];
      let at200 = 0;
      for (let parked = 200; parked <= 1000; parked += 200) {
        waiting.push(...wait(200));
        await eventually(() => waitersOf(server) === parked, 150_000);
        if (parked === 200) at200 = heldMb();
      }
      const at1000 = heldMb();
      const perWaiterKb = ((at1000 - at200) * 1024) / 800;
      console.log(
        `1,000 waiters (server and client in one process): heap ${at200.toFixed(1)} MB at 200, ` +
          `${at1000.toFixed(1)} MB at 1,000 (${perWaiterKb.toFixed(1)} KB each)`,
      );
      // Bounded: an HTTP exchange and a closure each, not a buffer or a poller per waiter.
      expect(perWaiterKb).toBeLessThan(64);
      await server.sendMail({ from: 'bob@example.net', to: grace.inbox, subject: 'For everyone', text: 'x' });
      const answers = await Promise.all(waiting);
      expect(
        answers.every((res) => res.status === 200 && res.json.data.emails[0]?.subject === 'For everyone'),
      ).toBe(true);
      expect(waitersOf(server)).toBe(0);
    },
  );
});

describe('waiting requests when the server stops', () => {
  it('ends them with an empty page and Connection: close, and the server stops', async () => {
    const server = await startServer();
    const waiting = Array.from({ length: 5 }, () => server.api(`/emails?account=${server.inbox}&wait=300`));
    await eventually(() => waitersOf(server) === 5);
    await server.stop();
    const answers = await Promise.all(waiting);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({ emails: [], nextCursor: null });
      expect(res.headers.get('connection')).toBe('close');
    }
  });
});
