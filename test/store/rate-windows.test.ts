import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/server.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

let box: InProcess;
beforeAll(async () => {
  box = await inProcessInbox('counted@mailroom.test');
});
afterAll(async () => box?.close());

describe('rate windows (the shared counts of a limit)', () => {
  it('counts hits in a window, per subject, and starts a new window once it has ended', async () => {
    const { rateWindows } = box.deps.store;
    const hits = async (subject: string, windowMs: number) => (await rateWindows.hit(subject, windowMs)).hits;
    expect(await hits('key:a', 60_000)).toBe(1);
    expect(await hits('key:a', 60_000)).toBe(2);
    expect(await hits('key:b', 60_000)).toBe(1);
    const window = await rateWindows.hit('key:a', 60_000);
    expect(window.hits).toBe(3);
    expect(window.resetMs).toBeGreaterThan(0);
    expect(window.resetMs).toBeLessThanOrEqual(60_000);
    // A short window ends; the next hit opens a new one.
    expect(await hits('key:short', 100)).toBe(1);
    await eventually(async () => (await hits('key:short', 100)) === 1, 30_000);
    expect(await rateWindows.prune(0)).toBeGreaterThan(0);
  });

  it('never says a window ends later than one window from now', async () => {
    // As a statement that read the clock a moment after this one leaves it, and commits first.
    await box.deps.store.db.rawRun(
      'INSERT INTO rate_windows (subject, window_start, hits) VALUES (?, ?, 3)',
      'key:ahead',
      new Date(Date.now() + 2_000).toISOString(),
    );
    const window = await box.deps.store.rateWindows.hit('key:ahead', 60_000);
    expect(window.hits).toBe(4);
    expect(window.resetMs).toBeLessThanOrEqual(60_000);
  });
});

describe("a key's look-up that counts its request (PostgreSQL)", () => {
  it('counts in the window the key is limited by, and nothing for an unknown or revoked key', async ({
    skip,
  }) => {
    const { deps } = box;
    if (deps.store.db.engine !== 'postgres') return skip('SQLite counts API requests in memory');
    const user = (await deps.store.users.list())[0]!;
    const { row, key } = await deps.store.apiKeys.create(user.id, 'counted', {
      inboxes: null,
      permissions: ['read'],
    });
    const first = await deps.store.apiKeys.authenticateCounting(key, 60_000);
    expect(first?.row).toMatchObject({ id: row.id, user_id: user.id, permissions: ['read'], inboxes: null });
    expect(first?.count.hits).toBe(1);
    expect(first?.count.resetMs).toBeGreaterThan(0);
    expect(first?.count.resetMs).toBeLessThanOrEqual(60_000);
    // The same window as a count made apart from the key (rateLimit's, for a stream token).
    expect((await deps.store.rateWindows.hit(`key:${row.id}`, 60_000)).hits).toBe(2);
    expect((await deps.store.apiKeys.authenticateCounting(key, 60_000))?.count.hits).toBe(3);
    expect(await deps.store.apiKeys.authenticateCounting(`${key}x`, 60_000)).toBeUndefined();
    await deps.store.apiKeys.revoke(row.id);
    expect(await deps.store.apiKeys.authenticateCounting(key, 60_000)).toBeUndefined();
    expect((await deps.store.rateWindows.hit(`key:${row.id}`, 60_000)).hits).toBe(4);
  });
});
