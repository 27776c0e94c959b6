import type { Db } from '../db/connection.js';
import { UIDS_EXPECTED } from './inboxes.js';

interface Pending<T> {
  work: () => Promise<T>;
  announce?: () => void;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs writes that arrive close together in one transaction, so many concurrent SMTP sessions
 * share one commit (one fsync). Each caller's promise settles only after the commit that
 * contains its work. What arrives while a batch commits goes into the next one. If a batch fails,
 * each item is retried alone so one bad write cannot fail its neighbours.
 */
export class GroupCommit {
  private queue: Pending<unknown>[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 200,
  ) {}

  /**
   * `announce` runs inside the batch's transaction before any item's work: where it says what the
   * work will look up (ThreadStore.expectSubject), the batch reads it for all items at once.
   */
  submit<T>(work: () => Promise<T>, announce?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, announce, resolve, reject } as Pending<unknown>);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) await this.runBatch(this.queue.splice(0, this.maxBatch));
    this.flushing = false;
  }

  private async runBatch(batch: Pending<unknown>[]): Promise<void> {
    let results: unknown[];
    try {
      results = await this.db.transaction(async () => {
        // Each message takes a uid of the inbox it is filed in: reserved for the batch at once.
        this.db.perTransaction(UIDS_EXPECTED, () => batch.length);
        for (const item of batch) item.announce?.();
        const done: unknown[] = [];
        for (const item of batch) done.push(await item.work());
        return done;
      });
    } catch {
      for (const item of batch) await this.runAlone(item);
      return;
    }
    batch.forEach((item, i) => item.resolve(results[i]));
  }

  private async runAlone(item: Pending<unknown>): Promise<void> {
    try {
      item.resolve(await this.db.transaction(item.work));
    } catch (error) {
      item.reject(error);
    }
  }
}
