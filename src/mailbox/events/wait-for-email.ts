import type { EventRow } from '../../store/events.js';
import { requireInbox } from '../access.js';
import { Unavailable, ValidationFailed } from '../errors.js';
import type { MailboxDeps } from '../deps.js';
import type { EmailView } from '../reading/email-view.js';
import type { ListQuery } from '../reading/read.js';
import { listEmails } from '../reading/read.js';

export const WAIT_MAX_SECONDS = 300;

export interface EmailPage {
  emails: EmailView[];
  nextCursor: string | null;
}

/** Why a wait ended: mail came (or was there), the time ran out, or the server is stopping. */
export type WaitEnd = 'found' | 'timeout' | 'shutdown' | 'aborted';

interface Group {
  userId: number;
  query: ListQuery;
  waiters: Set<(page: EmailPage | Error) => void>;
}

/**
 * The waiting room behind `GET /emails?wait=` and MCP's `wait_for_email`. Waiters of an inbox
 * sleep until the event bus says that inbox got mail; then the list query runs once per distinct
 * query (a thousand agents waiting on the same inbox and filters cost one query), and every waiter
 * whose page is no longer empty is answered. No waiter reads the database on its own clock.
 */
export class EmailWaiters {
  /** inbox id -> (user and query, as a key) -> the group waiting on that query. */
  private readonly byInbox = new Map<number, Map<string, Group>>();
  private readonly dirty = new Set<number>();
  private flushScheduled = false;
  private readonly closers = new Set<() => void>();
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: MailboxDeps) {
    this.unsubscribe = deps.bus.subscribe((rows) => this.onEvents(rows));
  }

  /**
   * The first page of `query` as soon as it is not empty: at once when mail is already there,
   * else when matching mail arrives, else (empty) after `timeoutMs`, when `signal` aborts, or
   * when the server stops. Access errors (the account is not the caller's) are thrown at once.
   */
  async wait(
    userId: number,
    query: ListQuery,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<EmailPage & { end: WaitEnd }> {
    const { deps } = this;
    // Registered before the first look, so mail committed between the two is not missed.
    const inboxId = (await requireInbox(deps, userId, query.account)).id;
    let settle!: (page: EmailPage | Error) => void;
    const woken = new Promise<EmailPage | Error>((resolve) => (settle = resolve));
    const leave = this.join(inboxId, userId, query, settle);
    try {
      const first = await listEmails(deps, userId, query);
      if (first.emails.length > 0 || this.closed) {
        return { ...first, end: first.emails.length > 0 ? 'found' : 'shutdown' };
      }
      let end: WaitEnd = 'timeout';
      const stop = (why: WaitEnd) => () => {
        end = why;
        settle({ emails: [], nextCursor: null });
      };
      const timer = setTimeout(stop('timeout'), timeoutMs);
      const onAbort = stop('aborted');
      signal?.addEventListener('abort', onAbort);
      const onClose = stop('shutdown');
      this.closers.add(onClose);
      try {
        const result = await woken;
        if (result instanceof Error) throw result;
        if (result.emails.length > 0) return { ...result, end: 'found' };
        // A last look at the timeout: mail filed by another process raises no bus notice here.
        if (end === 'timeout') return { ...(await listEmails(deps, userId, query)), end };
        return { ...result, end };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.closers.delete(onClose);
      }
    } finally {
      leave();
    }
  }

  /** Ends every wait with an empty page (server stopping); later waits end at once. */
  closeAll(): void {
    this.closed = true;
    this.unsubscribe();
    for (const close of [...this.closers]) close();
  }

  /** How many requests are waiting now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const groups of this.byInbox.values()) for (const g of groups.values()) n += g.waiters.size;
    return n;
  }

  private join(
    inboxId: number,
    userId: number,
    query: ListQuery,
    settle: (page: EmailPage | Error) => void,
  ): () => void {
    const key = JSON.stringify([userId, query]);
    let groups = this.byInbox.get(inboxId);
    if (!groups) this.byInbox.set(inboxId, (groups = new Map()));
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { userId, query, waiters: new Set() }));
    group.waiters.add(settle);
    return () => {
      group.waiters.delete(settle);
      if (group.waiters.size === 0 && groups.get(key) === group) groups.delete(key);
      if (groups.size === 0 && this.byInbox.get(inboxId) === groups) this.byInbox.delete(inboxId);
    };
  }

  private onEvents(rows: EventRow[]): void {
    for (const row of rows)
      if (row.inbox_id !== null && this.byInbox.has(row.inbox_id)) this.dirty.add(row.inbox_id);
    if (this.dirty.size === 0 || this.flushScheduled) return;
    // One look per inbox for all the commits published in this turn of the event loop.
    this.flushScheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Never rejects: a failed look answers its group's waiters with the error. */
  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const inboxes = [...this.dirty];
    this.dirty.clear();
    for (const inboxId of inboxes) {
      for (const group of [...(this.byInbox.get(inboxId)?.values() ?? [])]) {
        let page: EmailPage | Error;
        try {
          page = await listEmails(this.deps, group.userId, group.query);
        } catch (err) {
          page = err instanceof Error ? err : new Error(String(err));
        }
        if (page instanceof Error || page.emails.length > 0)
          for (const settle of [...group.waiters]) settle(page);
      }
    }
  }
}

export interface WaitOptions {
  /** 1 to 300 seconds. */
  seconds: number;
  /** Ends the wait early (the client went away). */
  signal?: AbortSignal;
  /** Only mail that arrives from now on, not matching mail already there. */
  newOnly?: boolean;
}

/**
 * The first page of `query` once it is not empty, waiting up to `seconds` for matching mail
 * (the doors: `GET /emails?wait=`, MCP `wait_for_email`). With `newOnly`, mail already there
 * does not count: the wait is for what arrives after the call.
 */
export async function waitForEmails(
  deps: MailboxDeps,
  userId: number,
  query: ListQuery,
  options: WaitOptions,
): Promise<EmailPage & { end: WaitEnd }> {
  if (!deps.waiters) throw new Unavailable('waiting for mail needs a running server');
  if (!(options.seconds >= 1 && options.seconds <= WAIT_MAX_SECONDS))
    throw ValidationFailed.field('wait', `wait must be 1 to ${WAIT_MAX_SECONDS} seconds`);
  const scoped = options.newOnly
    ? { ...query, afterUid: (await requireInbox(deps, userId, query.account)).uid_next - 1 }
    : query;
  return deps.waiters.wait(userId, scoped, options.seconds * 1000, options.signal);
}
