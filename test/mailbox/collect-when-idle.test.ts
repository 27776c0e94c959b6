import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectWhenIdle, idleStep } from '../../src/mailbox/ingest/collect-when-idle.js';
import type { IdleState } from '../../src/mailbox/ingest/collect-when-idle.js';
import { collectAndCompact, collectNow } from '../../src/mailbox/ingest/release-large.js';

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

describe("a quiet thread's collection", () => {
  /** Old-generation pages kept for nothing: the space V8 holds beyond its live objects, in MB. */
  const keptFree = () => {
    const old = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!;
    return (old.space_size - old.space_used_size) / 2 ** 20;
  };

  it('gives back the pages of an old generation left sparse', () => {
    // Objects that live long enough to reach the old generation, then half of them die: the
    // survivors hold every page they are spread over until a collection moves them, and V8's own
    // choice moves pages only when far emptier than that (an ordinary collection here: 22.3 MB
    // kept free before, 22.2 after; compacting: 23.6 -> 1.0).
    let kept: string[][] = Array.from({ length: 400_000 }, (_, i) => [`a string of its own ${i}`]);
    collectNow();
    collectNow();
    kept = kept.filter((_, i) => i % 2 === 0);
    collectNow();
    const sparse = keptFree();
    collectAndCompact();
    expect(kept).toHaveLength(200_000);
    expect(sparse - keptFree()).toBeGreaterThan(8);
  });
});
