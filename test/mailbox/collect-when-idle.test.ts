import { describe, expect, it } from 'vitest';
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
    // Nothing else runs meanwhile (no polling: each poll would be work in the window it measures),
    // and a window of a second, so a loaded machine's late timer stays far under 1% of it.
    let stop = () => {};
    await new Promise<void>((resolve) => {
      stop = collectWhenIdle(1000, resolve);
    });
    stop();
  });
});
