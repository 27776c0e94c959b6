import type { Worker } from '../../worker.js';
import { intervalWorker } from '../../worker.js';
import type { MailboxDeps } from '../deps.js';
import { pruneIdempotencyKeys } from '../sending/idempotency.js';
import { API_RATE_WINDOW_MS } from '../limits/api-rate.js';
import { runJobOnce } from './jobs.js';
import { pruneAudit } from '../audit/trail.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Forgets what has expired: Idempotency-Key answers older than a day, ended rate windows, send
 * counts no limit's window reaches, and audit records older than MAILROOM_AUDIT_RETENTION_DAYS.
 * Hourly from the start, by one node at a time (runJobOnce).
 */
export function createPrunes(
  deps: MailboxDeps,
  options: { intervalMs?: number; now?: () => Date } = {},
): Worker & { pruneOnce(): Promise<void> } {
  const intervalMs = options.intervalMs ?? HOUR_MS;
  const now = options.now ?? (() => new Date());
  async function pruneOnce(): Promise<void> {
    await runJobOnce(deps, 'prunes', intervalMs, async () => {
      const keys = await pruneIdempotencyKeys(deps);
      const windows = await deps.store.rateWindows.prune(API_RATE_WINDOW_MS);
      const sendCounts = await deps.store.sendLog.prune(now());
      const audit = await pruneAudit(deps, now());
      if (keys + windows + sendCounts > 0) deps.log.debug({ keys, windows, sendCounts }, 'pruned');
      if (audit > 0)
        deps.log.info({ audit, auditRetentionDays: deps.config.auditRetentionDays }, 'audit prune');
    });
  }

  const worker = intervalWorker('prunes', intervalMs, pruneOnce, (err) =>
    deps.log.error({ err }, 'prune failed'),
  );
  return { ...worker, pruneOnce };
}
