import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Worker } from '../../worker.js';
import { nowIso } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import { pruneAudit } from '../audit/trail.js';

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
   * One pass: deletes for good what has been in Trash longer than MAILROOM_TRASH_DAYS, and the
   * audit records older than MAILROOM_AUDIT_RETENTION_DAYS.
   */
  sweepOnce(): Promise<number>;
}

/** Empties Trash of mail older than config.trashDays, counted from when it was moved there. */
export function createTrashSweep(deps: MailboxDeps, options: TrashSweepOptions = {}): TrashSweep {
  const intervalMs = options.intervalMs ?? 60 * 60 * 1000;
  const batchSize = options.batchSize ?? 500;
  const now = options.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;

  async function sweepOnce(): Promise<number> {
    const cutoff = nowIso(new Date(now().getTime() - deps.config.trashDays * DAY_MS));
    let deleted = 0;
    while (!stopped) {
      const ids = await deps.store.messages.trashedBefore(cutoff, batchSize);
      if (ids.length === 0) break;
      await deps.store.db.transaction(async () => {
        for (const id of ids) await deps.store.messages.remove(id);
      });
      deleted += ids.length;
      await yieldToEventLoop();
    }
    if (deleted > 0) deps.log.info({ deleted, trashDays: deps.config.trashDays }, 'trash sweep');
    // The same hourly pass keeps the audit trail to MAILROOM_AUDIT_RETENTION_DAYS.
    const pruned = stopped ? 0 : await pruneAudit(deps, now());
    if (pruned > 0)
      deps.log.info({ pruned, auditRetentionDays: deps.config.auditRetentionDays }, 'audit prune');
    return deleted;
  }

  function run(): void {
    if (running || stopped) return;
    running = sweepOnce()
      .catch((err: unknown) => deps.log.error({ err }, 'trash sweep failed'))
      .finally(() => (running = undefined));
  }

  return {
    name: 'trash-sweep',
    sweepOnce,
    start() {
      stopped = false;
      run();
      timer = setInterval(run, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
