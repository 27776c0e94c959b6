import { withExtractedReply } from '../../events/payload.js';
import type { EventRow } from '../../store/events.js';
import { reachableInboxes, requireInbox } from '../access.js';
import type { Caller } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import type { AccessHolder, FeedCaller } from './access-check.js';
import { lostAccess } from './access-check.js';

const PAGE = 200;

/** Who holds a feed, and the inboxes it shows: one, those a limited key reaches, or (undefined) all the user's. */
type FeedScope = AccessHolder & { inboxIds?: readonly number[] };

/**
 * The events of a caller's inboxes in commit order, from a starting seq onwards. Every read is
 * from the events table (seq is assigned in commit order, so "after the last one sent" never skips
 * or repeats one); the bus only says when to read again.
 */
export class EventFeed {
  private cursor = 0;
  private dirty = true;
  private wake: (() => void) | null = null;
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly deps: MailboxDeps,
    private readonly scope: FeedScope,
  ) {
    this.unsubscribe = deps.bus.subscribe((rows) => {
      if (rows.some((row) => this.wants(row))) this.poke();
    });
  }

  /** A feed starting after `afterSeq`, or (null) after the last event committed now. */
  static async open(deps: MailboxDeps, scope: FeedScope, afterSeq: number | null): Promise<EventFeed> {
    // Subscribed before the starting point is read, so nothing committed in between is missed.
    const feed = new EventFeed(deps, scope);
    try {
      feed.cursor = afterSeq ?? (await deps.store.events.lastSeq());
    } catch (error) {
      feed.close();
      throw error;
    }
    return feed;
  }

  /** The next events not yet taken, oldest first (a page at a time). */
  async take(): Promise<EventRow[]> {
    this.dirty = false;
    const rows = await this.deps.store.events.forStream(this.scope, this.cursor, PAGE);
    const last = rows[rows.length - 1];
    if (last) this.cursor = last.seq;
    if (rows.length === PAGE) this.dirty = true;
    return rows.map((row) => ({ ...row, payload: withExtractedReply(row.payload) }));
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

  /**
   * Whether the caller may still read this feed (lostAccess: the key, the dashboard session, and
   * a one-inbox feed's inbox), read from the database each time.
   */
  async stillAllowed(): Promise<boolean> {
    return (await lostAccess(this.deps, this.scope)) === null;
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
      (this.scope.inboxIds === undefined || this.scope.inboxIds.includes(row.inbox_id))
    );
  }
}

/**
 * Opens the event feed of `GET /events`: one inbox when `account` is given (it must be the
 * caller's: 403), else every inbox of the caller, including ones added later (a key limited to
 * some inboxes: those). Starts after
 * `lastEventId` when given, else with what happens from now on. The door re-checks
 * `stillAllowed` while the feed is open and ends it when the caller's access is gone.
 */
export async function openEventFeed(
  deps: MailboxDeps,
  caller: Caller,
  options: { account?: string; lastEventId?: number; sessionId?: string },
): Promise<EventFeed> {
  const { userId, keyId } = caller;
  const inboxId =
    options.account !== undefined ? (await requireInbox(deps, caller, options.account)).id : undefined;
  const who: FeedCaller =
    keyId !== null ? { userId, keyId } : { userId, sessionId: requireSession(options.sessionId) };
  const inboxIds =
    inboxId !== undefined
      ? [inboxId]
      : caller.inboxes !== null
        ? (await reachableInboxes(deps, caller)).map((inbox) => inbox.id)
        : undefined;
  return EventFeed.open(
    deps,
    { ...who, ...(inboxId !== undefined ? { inboxId } : {}), ...(inboxIds ? { inboxIds } : {}) },
    options.lastEventId ?? null,
  );
}

/** A feed is held by a key or a dashboard session: what ends it when access is gone. */
function requireSession(sessionId: string | undefined): string {
  if (sessionId === undefined) throw new Error('an event feed without a key needs the session it is for');
  return sessionId;
}
