import type { Worker } from '../../worker.js';
import type { MailboxDeps } from '../deps.js';

const PAGE = 500;
/** A notice's read waits this long, so a burst of commits costs one read. */
const WAKE_MS = 10;

/**
 * Events committed by another process or node raise no notice on this process's bus, so waiters,
 * live streams and the webhook dispatcher here would hear of them only on their slow clocks. The
 * tail reads the events table after the last seq it has seen and publishes the rows this process
 * did not publish itself: one indexed query for the whole process, however many are listening.
 * It reads when the database says events were committed (PostgreSQL's NOTIFY, within WAKE_MS,
 * bursts folded into one read) and every `intervalMs` besides, which is the only clock on SQLite
 * and the backstop for a notice lost with its connection. Seq is assigned in commit order on both
 * engines, so reading after the last one seen misses nothing.
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
  private unlisten: Promise<() => Promise<void>> | null = null;
  /** A notice came while a read ran: read again as soon as it ends. */
  private again = false;
  private dueAt = Infinity;

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
    this.unlisten = this.deps.store.events
      .onAppended(() => this.wake())
      .catch((err: unknown) => {
        this.deps.log.warn({ err }, 'event tail could not listen for notices: it reads on its interval');
        return async () => {};
      });
  }

  private wake(): void {
    if (!this.unsubscribe) return;
    if (this.running) this.again = true;
    else if (this.dueAt > Date.now() + WAKE_MS) this.schedule(WAKE_MS);
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await (
      await this.unlisten
    )?.();
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dueAt = Infinity;
      this.running = this.readOnce()
        .catch((err: unknown) => this.deps.log.debug({ err }, 'event tail could not read the events'))
        .finally(() => {
          this.running = null;
          const again = this.again;
          this.again = false;
          if (this.unsubscribe) this.schedule(again ? 0 : this.intervalMs);
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
