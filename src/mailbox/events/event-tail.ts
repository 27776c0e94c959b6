import type { Worker } from '../../worker.js';
import type { MailboxDeps } from '../deps.js';

const PAGE = 500;

/**
 * Events committed by another process or node raise no notice on this process's bus, so waiters,
 * live streams and the webhook dispatcher here would hear of them only on their slow clocks. The
 * tail reads the events table after the last seq it has seen, every `intervalMs`, and publishes
 * the rows this process did not publish itself: one indexed query per interval for the whole
 * process, however many are listening. Seq is assigned in commit order on both engines, so
 * reading after the last one seen misses nothing.
 */
export class EventTail implements Worker {
  readonly name = 'event tail';
  private cursor: number | null = null;
  /** Seqs this process published itself that the tail has not passed yet. */
  private readonly ownSeqs = new Set<number>();
  private publishing = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: MailboxDeps,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((rows) => {
      if (this.publishing) return;
      for (const row of rows) if (this.cursor === null || row.seq > this.cursor) this.ownSeqs.add(row.seq);
    });
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.readOnce()
        .catch((err: unknown) => this.deps.log.debug({ err }, 'event tail could not read the events'))
        .finally(() => {
          this.running = null;
          if (this.unsubscribe) this.schedule(this.intervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  private async readOnce(): Promise<void> {
    const events = this.deps.store.events;
    if (this.cursor === null) {
      this.cursor = await events.lastSeq();
      for (const seq of this.ownSeqs) if (seq <= this.cursor) this.ownSeqs.delete(seq);
      return;
    }
    for (;;) {
      const rows = await events.after(this.cursor, PAGE);
      if (rows.length === 0) return;
      this.cursor = rows[rows.length - 1]!.seq;
      const foreign = rows.filter((row) => !this.ownSeqs.has(row.seq));
      for (const seq of this.ownSeqs) if (seq <= this.cursor) this.ownSeqs.delete(seq);
      if (foreign.length > 0) {
        this.publishing = true;
        try {
          this.deps.bus.publish(foreign);
        } finally {
          this.publishing = false;
        }
      }
      if (rows.length < PAGE) return;
    }
  }
}
