import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Worker } from '../../worker.js';
import { intervalWorker } from '../../worker.js';
import { nowIso } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import { runJobOnce } from '../operations/jobs.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrashSweepOptions {
  /** How often to sweep after the first run at start (default hourly). */
  intervalMs?: number;
  /** Messages deleted per transaction; the event loop gets a turn between batches. */
  batchSize?: number;
  now?: () => Date;
}

export interface TrashSweep extends Worker {
  /**
   * One pass: deletes for good what has been in Trash longer than MAILROOM_TRASH_DAYS. Skipped
   * (0) when another node has swept within the interval: one node sweeps at a time.
   */
  sweepOnce(): Promise<number>;
}

/** Empties Trash of mail older than config.trashDays, counted from when it was moved there. */
export function createTrashSweep(deps: MailboxDeps, options: TrashSweepOptions = {}): TrashSweep {
  const intervalMs = options.intervalMs ?? 60 * 60 * 1000;
  const batchSize = options.batchSize ?? 500;
  const now = options.now ?? (() => new Date());
  let stopped = () => false;

  async function sweepOnce(): Promise<number> {
    return (await runJobOnce(deps, 'trash-sweep', intervalMs, sweep)) ?? 0;
  }

  async function sweep(): Promise<number> {
    const cutoff = nowIso(new Date(now().getTime() - deps.config.trashDays * DAY_MS));
    let deleted = 0;
    while (!stopped()) {
      const ids = await deps.store.messages.trashedBefore(cutoff, batchSize);
      if (ids.length === 0) break;
      await deps.store.db.transaction(async () => {
        for (const id of ids) await deps.store.messages.remove(id);
      });
      deleted += ids.length;
      await yieldToEventLoop();
    }
    if (deleted > 0) deps.log.info({ deleted, trashDays: deps.config.trashDays }, 'trash sweep');
    return deleted;
  }

  const worker = intervalWorker(
    'trash-sweep',
    intervalMs,
    (isStopped) => {
      stopped = isStopped;
      return sweepOnce();
    },
    (err) => deps.log.error({ err }, 'trash sweep failed'),
  );
  return { ...worker, sweepOnce };
}
