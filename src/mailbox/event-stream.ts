import type { EventRow } from '../store/events.js';
import { requireInbox } from './access.js';
import type { MailboxDeps } from './deps.js';

const PAGE = 200;

/**
 * The events of a caller's inboxes in commit order, from a starting seq onwards. Every read is
 * from the events table (seq is assigned in commit order, so "after the last one sent" never skips
 * or repeats one); the bus only says when to read again.
 */
export class EventFeed {
  private cursor: number;
  private dirty = true;
  private wake: (() => void) | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly deps: MailboxDeps,
    private readonly scope: { userId: number; inboxId?: number },
    afterSeq: number | null,
  ) {
    // Subscribed before the starting point is read, so nothing committed in between is missed.
    this.unsubscribe = deps.bus.subscribe((rows) => {
      if (rows.some((row) => this.wants(row))) this.poke();
    });
    this.cursor = afterSeq ?? deps.store.events.lastSeq();
  }

  /** The next events not yet taken, oldest first (a page at a time). */
  take(): EventRow[] {
    this.dirty = false;
    const rows = this.deps.store.events.forStream(this.scope, this.cursor, PAGE);
    const last = rows[rows.length - 1];
    if (last) this.cursor = last.seq;
    if (rows.length === PAGE) this.dirty = true;
    return rows;
  }

  /** Resolves true when there may be more to take (or on `close`), false when `ms` passed quietly. */
  wait(ms: number): Promise<boolean> {
    if (this.dirty) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        // A quiet period still reads once: events written by another process raise no bus notice.
        this.dirty = true;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }

  close(): void {
    this.unsubscribe();
    this.wake?.();
  }

  private poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  private wants(row: EventRow): boolean {
    return (
      row.user_id === this.scope.userId &&
      row.inbox_id !== null &&
      (this.scope.inboxId === undefined || row.inbox_id === this.scope.inboxId)
    );
  }
}

/**
 * Opens the event feed of `GET /events`: one inbox when `account` is given (it must be the
 * caller's: 403), else every inbox of the caller, including ones added later. Starts after
 * `lastEventId` when given, else with what happens from now on.
 */
export function openEventFeed(
  deps: MailboxDeps,
  userId: number,
  options: { account?: string; lastEventId?: number },
): EventFeed {
  const inboxId = options.account !== undefined ? requireInbox(deps, userId, options.account).id : undefined;
  return new EventFeed(
    deps,
    { userId, ...(inboxId !== undefined ? { inboxId } : {}) },
    options.lastEventId ?? null,
  );
}
