import { describe, expect, it, vi } from 'vitest';
import { collectWhenIdle, idleStep } from '../../src/mailbox/ingest/collect-when-idle.js';
import type { IdleState } from '../../src/mailbox/ingest/collect-when-idle.js';

describe('a thread collects once it is quiet after work', () => {
  it('collects on the first quiet window after work, once, and again only after more work', () => {
    const state: IdleState = { worked: true };
    const verdicts = [0.3, 0.001, 0, 0, 0.5, 0.2, 0.004, 0].map((u) => idleStep(state, u));
    expect(verdicts).toEqual([false, true, false, false, false, false, true, false]);
  });

  it('never collects a thread that stays busy', () => {
    const state: IdleState = { worked: true };
    expect([0.05, 0.9, 0.02, 0.01].map((u) => idleStep(state, u))).toEqual([false, false, false, false]);
  });

  it('runs the collection by itself once the event loop goes quiet after start-up', async () => {
    const collect = vi.fn();
    const stop = collectWhenIdle(50, collect);
    try {
      await vi.waitFor(() => expect(collect).toHaveBeenCalled(), { timeout: 30_000, interval: 20 });
    } finally {
      stop();
    }
  });
});
