import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptWindow, DashboardSessionStore } from '../../src/store/dashboard-sessions.js';
import { startSecondNode } from '../helpers/second-node.js';
import { onPostgres, startServer } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';
import type { TestServer } from '../helpers/server.js';

const LIMIT = 4;
// The store is given its clock: a window that started at T0 is open until WINDOW_END.
const T0 = '2030-01-01T00:00:00.000Z';
const DURING = { now: '2030-01-01T00:01:00.000Z', windowStart: '2029-12-31T23:56:00.000Z', limit: LIMIT };
const AFTER = { now: '2030-01-01T00:05:00.000Z', windowStart: '2030-01-01T00:00:00.000Z', limit: LIMIT };
const FIRST = { now: T0, windowStart: '2029-12-31T23:55:00.000Z', limit: LIMIT };

// Sign-in attempts take their places in rows (migration 015), on both engines.
describe('sign-in attempt windows in the store', { timeout: 120_000 }, () => {
  let server: TestServer;
  let store: DashboardSessionStore;
  beforeAll(async () => {
    server = await startServer();
    store = server.mailroom.deps.store.dashboardSessions;
  });
  afterAll(async () => server?.stop());

  const held = async (subject: string) => {
    const row = await server.mailroom.deps.store.db.rawFirst<{ attempts: number; window_start: string }>(
      'SELECT attempts, window_start FROM sign_in_attempts WHERE subject = ?',
      subject,
    );
    return row && { attempts: Number(row.attempts), since: row.window_start };
  };

  it('gives places to at most the limit of 40 attempts made at once', async () => {
    await store.reserveAttempt(['client:a', 'name:x'], FIRST);
    const claims = await Promise.all(
      Array.from({ length: 40 }, () => store.reserveAttempt(['client:a', 'name:x'], DURING)),
    );
    const granted = claims.filter((c) => c.reserved.length === 2);
    expect(granted).toHaveLength(LIMIT - 1);
    for (const claim of claims) expect(claim.reserved.length === 0).toBe(claim.full.length > 0);
    expect(claims.find((c) => c.full.length > 0)!.full[0]).toEqual({ subject: 'client:a', window_start: T0 });
    expect(await held('client:a')).toEqual({ attempts: LIMIT, since: T0 });
    expect(await held('name:x')).toEqual({ attempts: LIMIT, since: T0 });
  });

  it('keeps nothing of a refused attempt: a full name leaves the address as it was', async () => {
    const refused = await store.reserveAttempt(['client:b', 'name:x'], DURING);
    expect(refused).toEqual({ reserved: [], full: [{ subject: 'name:x', window_start: T0 }] });
    expect(await held('client:b')).toBeUndefined();
    for (let i = 0; i < LIMIT; i++)
      expect((await store.reserveAttempt(['client:b', `name:y${i}`], DURING)).reserved).toHaveLength(2);
    expect(await held('client:b')).toEqual({ attempts: LIMIT, since: DURING.now });
  });

  it('takes back a place given back in its own window, not in a window started since', async () => {
    const first = await store.reserveAttempt(['client:c', 'name:z'], FIRST);
    await store.releaseAttempt(first.reserved);
    expect(await held('client:c')).toEqual({ attempts: 0, since: T0 });
    // A window holding no attempt is over: the next attempt starts a new one.
    const second = await store.reserveAttempt(['client:c', 'name:z'], DURING);
    expect(second.reserved).toEqual([
      { subject: 'client:c', window_start: DURING.now },
      { subject: 'name:z', window_start: DURING.now },
    ]);
    // A release of the first window's place (late, say) leaves the second window alone.
    await store.releaseAttempt(first.reserved);
    expect(await held('client:c')).toEqual({ attempts: 1, since: DURING.now });
  });

  it('starts a new window once the old one has ended, full or not', async () => {
    expect((await store.reserveAttempt(['client:a', 'name:x'], DURING)).full).toHaveLength(2);
    const claim = await store.reserveAttempt(['client:a', 'name:x'], AFTER);
    expect(claim.reserved.map((w: AttemptWindow) => w.window_start)).toEqual([AFTER.now, AFTER.now]);
    expect(await held('client:a')).toEqual({ attempts: 1, since: AFTER.now });
  });

  it.skipIf(!onPostgres)(
    'gives at most the limit of places to attempts made on two nodes at once',
    async () => {
      const databaseUrl = await (await testPostgres()).createDatabase();
      const secret = 'c'.repeat(64);
      const nodeA = await startServer({ databaseUrl, secret });
      const nodeB = await startSecondNode(databaseUrl, secret);
      try {
        const stores = [nodeA, nodeB].map((node) => node.mailroom.deps.store.dashboardSessions);
        const claims = await Promise.all(
          Array.from({ length: 40 }, (_, i) => stores[i % 2]!.reserveAttempt(['client:d', 'name:w'], DURING)),
        );
        expect(claims.filter((c) => c.reserved.length === 2)).toHaveLength(LIMIT);
        const row = await nodeA.mailroom.deps.store.db.rawFirst<{ attempts: number }>(
          "SELECT attempts FROM sign_in_attempts WHERE subject = 'name:w'",
        );
        expect(Number(row!.attempts)).toBe(LIMIT);
      } finally {
        await nodeB.stop();
        await nodeA.stop();
        await (await testPostgres()).dropDatabase(databaseUrl);
      }
    },
  );
});
