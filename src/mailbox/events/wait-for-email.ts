import type { EventRow } from '../../store/events.js';
import type { Caller } from '../caller.js';
import { ownerCaller } from '../caller.js';
import { notYourInbox, requireInbox } from '../access.js';
import { MailroomError } from '../errors.js';
import type { MailboxDeps } from '../deps.js';
import type { EmailView } from '../reading/email-view.js';
import type { ListQuery } from '../reading/read.js';
import { listEmails } from '../reading/read.js';
import { lostAccess } from './access-check.js';
import { WaitSlots } from './wait-slots.js';

export const WAIT_MAX_SECONDS = 300;

/** How often waits held by API keys re-read whether their keys still stand (as `GET /events` does). */
export const ACCESS_CHECK_MS = 3_000;

export interface EmailPage {
  emails: EmailView[];
  nextCursor: string | null;
}

/** Why a wait ended: mail came (or was there), the time ran out, or the server is stopping. */
export type WaitEnd = 'found' | 'timeout' | 'shutdown' | 'aborted';

/** Where requests wait for mail: the server's waiting room, or, where no server runs, none. */
export interface Waiters {
  wait(
    caller: Caller,
    query: ListQuery,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<EmailPage & { end: WaitEnd }>;
  /** Ends every wait with an empty page (server stopping); later waits end at once. */
  closeAll(): void;
  /** How many requests are waiting now (for tests and metrics). */
  readonly size: number;
}

/**
 * Outside the server (the CLI, the ingest thread) nothing files mail while a wait sleeps, so a
 * wait answers at once: the first page, found or not.
 */
export function waitersAtOnce(deps: MailboxDeps): Waiters {
  return {
    async wait(caller, query) {
      const page = await listEmails(deps, caller, query);
      return { ...page, end: page.emails.length > 0 ? 'found' : 'timeout' };
    },
    closeAll() {},
    size: 0,
  };
}

/** A key's waits on one inbox: what an access check looks at. */
interface KeyHold {
  keyId: string;
  userId: number;
  inboxId: number;
  /** The address the wait named: what a refusal for a lost inbox names. */
  account: string;
  /** Who waits: a refusal for a lost inbox names what they still reach. */
  caller: Caller;
}

interface Waiter {
  keyId: string | null;
  caller: Caller;
  settle(result: EmailPage | Error): void;
}

interface Group {
  userId: number;
  inboxId: number;
  query: ListQuery;
  waiters: Set<Waiter>;
}

/**
 * The waiting room behind every way of waiting for mail. Waiters of an inbox sleep until the event
 * bus says that inbox got mail; then the list query runs once per distinct query (a thousand agents
 * waiting on the same inbox and filters cost one query), and every waiter whose page is no longer
 * empty is answered. No waiter reads the database on its own clock: the access of the keys holding
 * waits is re-read every `accessCheckMs` for all of them at once, one check per key and inbox.
 */
export class EmailWaiters implements Waiters {
  /** inbox id -> (user and query, as a key) -> the group waiting on that query. */
  private readonly byInbox = new Map<number, Map<string, Group>>();
  private readonly dirty = new Set<number>();
  private flushScheduled = false;
  private readonly closers = new Set<() => void>();
  private closed = false;
  private readonly unsubscribe: () => void;
  private readonly slots: WaitSlots;
  private accessTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: MailboxDeps,
    private readonly accessCheckMs = ACCESS_CHECK_MS,
  ) {
    this.unsubscribe = deps.bus.subscribe((rows) => this.onEvents(rows));
    this.slots = new WaitSlots(() => deps.config.maxWaitsPerKey);
  }

  /**
   * The first page of `query` as soon as it is not empty: at once when mail is already there,
   * else when matching mail arrives, else (empty) after `timeoutMs`, when `signal` aborts, or
   * when the server stops. Access errors (the account is not the caller's) are thrown at once; a
   * key beyond its waits is refused (TooManyWaits); a key revoked while it waits ends the wait
   * with `unauthorized`, and is never answered with mail.
   */
  async wait(
    caller: Caller,
    query: ListQuery,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<EmailPage & { end: WaitEnd }> {
    const { deps } = this;
    const { userId, keyId } = caller;
    const release = keyId !== null ? this.slots.take(keyId) : () => {};
    try {
      const inboxId = (await requireInbox(deps, caller, query.account)).id;
      let settle!: (page: EmailPage | Error) => void;
      const woken = new Promise<EmailPage | Error>((resolve) => (settle = resolve));
      // Registered before the first look, so mail committed between the two is not missed.
      const leave = this.join(inboxId, userId, query, { keyId, caller, settle });
      try {
        const first = await listEmails(deps, caller, query);
        if (first.emails.length > 0 || this.closed) {
          return { ...first, end: first.emails.length > 0 ? 'found' : 'shutdown' };
        }
        return await this.sleep(woken, settle, timeoutMs, signal, async () => {
          // A last look at the timeout: mail filed by another process raises no bus notice here.
          const last = await listEmails(deps, caller, query);
          if (last.emails.length > 0 && keyId !== null) {
            const refused = await this.refusal({ keyId, userId, inboxId, account: query.account, caller });
            if (refused) throw refused;
          }
          return last;
        });
      } finally {
        leave();
      }
    } finally {
      release();
    }
  }

  /** Ends every wait with an empty page (server stopping); later waits end at once. */
  closeAll(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.accessTimer) clearTimeout(this.accessTimer);
    this.accessTimer = null;
    for (const close of [...this.closers]) close();
  }

  /** How many requests are waiting now (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const groups of this.byInbox.values()) for (const g of groups.values()) n += g.waiters.size;
    return n;
  }

  /** Until the waiter is woken, or its time runs out (then `lastLook`), `signal` aborts or the server stops. */
  private async sleep(
    woken: Promise<EmailPage | Error>,
    settle: (page: EmailPage | Error) => void,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    lastLook: () => Promise<EmailPage>,
  ): Promise<EmailPage & { end: WaitEnd }> {
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
      if (end === 'timeout') return { ...(await lastLook()), end };
      return { ...result, end };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.closers.delete(onClose);
    }
  }

  private join(inboxId: number, userId: number, query: ListQuery, waiter: Waiter): () => void {
    const key = JSON.stringify([userId, query]);
    let groups = this.byInbox.get(inboxId);
    if (!groups) this.byInbox.set(inboxId, (groups = new Map()));
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { userId, inboxId, query, waiters: new Set() }));
    group.waiters.add(waiter);
    if (waiter.keyId !== null) this.scheduleAccessCheck();
    return () => {
      group.waiters.delete(waiter);
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
          // Each waiter's reach took in this inbox when it joined: the group reads as the inbox's owner.
          page = await listEmails(this.deps, ownerCaller(group.userId), group.query);
        } catch (err) {
          page = err instanceof Error ? err : new Error(String(err));
        }
        if (page instanceof Error) for (const waiter of [...group.waiters]) waiter.settle(page);
        else if (page.emails.length > 0) await this.answer(group, [...group.waiters], page);
      }
    }
  }

  /** Mail for `waiters`: only those whose key still stands get it, the others their refusal. */
  private async answer(group: Group, waiters: Waiter[], page: EmailPage): Promise<void> {
    const refusals = new Map<string, Error | null>();
    for (const waiter of waiters) {
      const { keyId } = waiter;
      if (keyId !== null && !refusals.has(keyId))
        refusals.set(
          keyId,
          await this.refusalOrError({
            keyId,
            userId: group.userId,
            inboxId: group.inboxId,
            account: group.query.account,
            caller: waiter.caller,
          }),
        );
      waiter.settle((keyId !== null ? refusals.get(keyId) : null) ?? page);
    }
  }

  private scheduleAccessCheck(): void {
    if (this.accessTimer || this.closed) return;
    this.accessTimer = setTimeout(() => {
      void this.checkAccess().finally(() => {
        this.accessTimer = null;
        if (this.slots.any) this.scheduleAccessCheck();
      });
    }, this.accessCheckMs);
    this.accessTimer.unref();
  }

  /** Ends the waits whose key was revoked (or whose inbox is no longer the user's), once per key and inbox. */
  private async checkAccess(): Promise<void> {
    const held = new Map<string, { holder: KeyHold; waiters: Waiter[] }>();
    for (const [inboxId, groups] of this.byInbox)
      for (const group of groups.values())
        for (const waiter of group.waiters) {
          if (waiter.keyId === null) continue;
          const id = `${waiter.keyId}/${inboxId}`;
          let entry = held.get(id);
          if (!entry)
            held.set(
              id,
              (entry = {
                holder: {
                  keyId: waiter.keyId,
                  userId: group.userId,
                  inboxId,
                  account: group.query.account,
                  caller: waiter.caller,
                },
                waiters: [],
              }),
            );
          entry.waiters.push(waiter);
        }
    await Promise.all(
      [...held.values()].map(async ({ holder, waiters }) => {
        const refused = await this.refusalOrError(holder);
        if (refused) for (const waiter of waiters) waiter.settle(refused);
      }),
    );
  }

  /** The error a key's wait on an inbox ends with now, or null while it may go on. */
  private async refusal(holder: KeyHold): Promise<MailroomError | null> {
    const lost = await lostAccess(this.deps, holder);
    if (lost === null) return null;
    if (lost === 'inbox') return notYourInbox(this.deps, holder.caller, holder.account);
    return new MailroomError('unauthorized', 'this API key was revoked while it waited for mail');
  }

  /** As refusal; a check that could not be made ends the wait with its error, as an event stream's does. */
  private async refusalOrError(holder: KeyHold): Promise<Error | null> {
    try {
      return await this.refusal(holder);
    } catch (err) {
      this.deps.log.warn({ err }, 'a wait for mail ended: its access could not be checked');
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

export interface WaitOptions {
  /** How long to wait for matching mail (the doors take 1 to WAIT_MAX_SECONDS seconds). */
  timeoutMs: number;
  /** Ends the wait early (the client went away). */
  signal?: AbortSignal;
}

/**
 * What waiting for mail means, for every way of waiting (`GET /emails?wait=`, MCP
 * `wait_for_email`, the embedded `waitForEmail`; the typed client's long-polls the first): the
 * first page of `query` at once when matching mail is already there, else as soon as matching mail
 * arrives, else an empty page after `timeoutMs`. `since` narrows it to mail received at or after
 * that time (by the server's clock, not the Date header the sender's clock wrote). A key holds at most MAILROOM_MAX_WAITS_PER_KEY waits at once,
 * and its waits end with `unauthorized` within `accessCheckMs` of its revocation.
 */
export async function waitForEmails(
  deps: MailboxDeps,
  caller: Caller,
  query: ListQuery,
  options: WaitOptions,
): Promise<EmailPage & { end: WaitEnd }> {
  return deps.waiters.wait(caller, query, options.timeoutMs, options.signal);
}
