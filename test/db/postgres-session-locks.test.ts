import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { eventually } from '../helpers/server.js';
import { testPostgres } from '../helpers/test-postgres.js';

// Db.holdLock on PostgreSQL: what the mailbox lock of two nodes relies on (several-nodes.md).
describe('session locks of two processes on one PostgreSQL', () => {
  let one: PostgresDb;
  let two: PostgresDb;
  beforeAll(async () => {
    const url = await (await testPostgres()).createDatabase();
    [one, two] = [await openPostgres(url), await openPostgres(url)];
  });
  afterAll(async () => Promise.all([one?.close(), two?.close()]));

  /** Asks `db` for the lock; tells when it is held and whether it had to wait. */
  const ask = (db: PostgresDb, key: number) => {
    const state = { held: false, waited: false, release: async () => {} };
    const taken = db
      .holdLock(1, key, () => (state.waited = true))
      .then((release) => {
        state.held = true;
        state.release = release;
      });
    return { state, taken };
  };

  it('makes the other process wait until the holder lets go, and lets other keys go by', async () => {
    const release = await one.holdLock(1, 7);
    const waiting = ask(two, 7);
    await eventually(() => waiting.state.waited || waiting.state.held);
    expect(waiting.state.held).toBe(false);
    // Another mailbox is not held up.
    await (
      await two.holdLock(1, 8)
    )();
    await release();
    await waiting.taken;
    await waiting.state.release();
  });

  it('lets go of what a process held when its connection ends (a node that dies)', async () => {
    await one.holdLock(1, 9);
    const waiting = ask(two, 9);
    await eventually(() => waiting.state.waited);
    await one.rawRun(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = 1 AND objid = 9 AND granted",
    );
    await waiting.taken;
    await waiting.state.release();
    // The process that lost its connection connects again for its next lock.
    await (
      await one.holdLock(1, 9)
    )();
  });

  it('refuses a lock asked for inside a transaction (it is taken before any)', async () => {
    await expect(one.transaction(() => one.holdLock(1, 10))).rejects.toThrow(/before any transaction/);
  });
});
