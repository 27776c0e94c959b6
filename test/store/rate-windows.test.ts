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
});
