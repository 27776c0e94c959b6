import type { Db } from '../db/connection.js';

interface Pending<T> {
  work: () => T;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs writes that arrive close together in one transaction, so many concurrent SMTP sessions
 * share one fsync. Each caller's promise settles only after the commit that contains its work.
 * If the batch fails, each item is retried alone so one bad write cannot fail its neighbours.
 */
export class GroupCommit {
  private queue: Pending<unknown>[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 200,
  ) {}

  submit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve, reject } as Pending<unknown>);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.runBatch(batch);
    }
  }

  private runBatch(batch: Pending<unknown>[]): void {
    let results: unknown[];
    try {
      results = this.db.transaction(() => batch.map((item) => item.work()));
    } catch {
      for (const item of batch) this.runAlone(item);
      return;
    }
    batch.forEach((item, i) => item.resolve(results[i]));
  }

  private runAlone(item: Pending<unknown>): void {
    try {
      item.resolve(this.db.transaction(item.work));
    } catch (error) {
      item.reject(error);
    }
  }
}
