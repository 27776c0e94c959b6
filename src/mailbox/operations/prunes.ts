import type { Worker } from '../../worker.js';
import { intervalWorker } from '../../worker.js';
import type { MailboxDeps } from '../deps.js';
import { pruneIdempotencyKeys } from '../sending/idempotency.js';
import { API_RATE_WINDOW_MS } from '../limits/api-rate.js';
import { runJobOnce } from './jobs.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Forgets what has expired: Idempotency-Key answers older than a day and ended rate windows.
 * Hourly from the start, by one node at a time (runJobOnce).
 */
export function createPrunes(
  deps: MailboxDeps,
  intervalMs = HOUR_MS,
): Worker & { pruneOnce(): Promise<void> } {
  async function pruneOnce(): Promise<void> {
    await runJobOnce(deps, 'prunes', intervalMs, async () => {
      const keys = await pruneIdempotencyKeys(deps);
      const windows = await deps.store.rateWindows.prune(API_RATE_WINDOW_MS);
      if (keys + windows > 0) deps.log.debug({ keys, windows }, 'pruned');
    });
  }

  const worker = intervalWorker('prunes', intervalMs, pruneOnce, (err) =>
    deps.log.error({ err }, 'prune failed'),
  );
  return { ...worker, pruneOnce };
}
