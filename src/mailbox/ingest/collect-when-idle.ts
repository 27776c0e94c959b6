import { performance } from 'node:perf_hooks';
import { collectAndCompact } from './release-large.js';

/** How long a thread must be quiet (its event loop under 1% busy) before it collects. */
const WINDOW_MS = 10_000;
const QUIET = 0.01;

/** Whether a thread has worked since its last collection. */
export interface IdleState {
  worked: boolean;
}

/** One window's verdict: collect on the first quiet window after work, then not until work again. */
export function idleStep(state: IdleState, utilization: number): boolean {
  if (utilization >= QUIET) {
    state.worked = true;
    return false;
  }
  if (!state.worked) return false;
  state.worked = false;
  return true;
}

/**
 * Collects on this thread once it has been quiet for a whole window after work (start-up counts
 * as work). V8 keeps the young generation it grew under load (32 MB on the main thread) and the
 * old generation's free pages until its next full collection, which a quiet server never
 * reaches; full collections once the allocation rate is low give both back (collectAndCompact).
 * The cost is two collections per quiet spell, nothing per message. Returns a function that stops it.
 */
export function collectWhenIdle(windowMs = WINDOW_MS, collect: () => void = collectAndCompact): () => void {
  const state: IdleState = { worked: true };
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    if (idleStep(state, utilization)) collect();
  }, windowMs);
  timer.unref();
  return () => clearInterval(timer);
}
