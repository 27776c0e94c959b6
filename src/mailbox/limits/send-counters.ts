import type { EventRow } from '../../store/events.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import { TryLater } from '../errors.js';
import type { OutgoingRecipient } from '../sending/send-policy.js';
import { DAY_MS, HOUR_MS, limitsOf } from './inbox-settings.js';

/** The loop guard's window (contract 14). */
export const LOOP_WINDOW_MINUTES = 10;
const LOOP_WINDOW_MS = LOOP_WINDOW_MINUTES * 60 * 1000;

/** What counting a send decided: it passes (and is counted), or this refusal with the events it raised. */
export type CountedSend = { refused: null } | { refused: TryLater; events: EventRow[] };

/**
 * Steps 4 and 5 of the send policy (contract 14): the loop guard, then the send limits. Call
 * inside the transaction that saves the send: the inbox's row is held first, so the count and
 * the check hold across nodes, and a send that passes is counted in the same transaction (a
 * refused one is not). An address given twice in one message counts once.
 */
export async function countSend(
  deps: MailboxDeps,
  inbox: InboxRow,
  recipients: OutgoingRecipient[],
  at: Date,
): Promise<CountedSend> {
  const log = deps.store.sendLog;
  const pathOf = new Map<string, OutgoingRecipient['path']>();
  for (const r of recipients) if (!pathOf.has(r.address)) pathOf.set(r.address, r.path);
  const addresses = [...pathOf.keys()];
  await log.hold(inbox.id);
  const loop = await loopGuard(deps, inbox, pathOf, at);
  if (loop) return loop;
  const limited = await sendLimits(deps, inbox, addresses.length, at);
  if (limited) return { refused: limited, events: [] };
  await log.record(inbox.id, addresses, at);
  return { refused: null };
}

/**
 * At most MAILROOM_LOOP_LIMIT messages to one address in 10 minutes. While nothing can be sent
 * to it, nothing is added, so the newest row in a full window is when it filled: the event is
 * raised once per address for the first refusal after that.
 */
async function loopGuard(
  deps: MailboxDeps,
  inbox: InboxRow,
  pathOf: Map<string, OutgoingRecipient['path']>,
  at: Date,
): Promise<CountedSend | null> {
  const addresses = [...pathOf.keys()];
  if (addresses.length === 0) return null;
  const log = deps.store.sendLog;
  const max = deps.config.loopLimit;
  const since = new Date(at.getTime() - LOOP_WINDOW_MS);
  const sent = await log.perAddress(inbox.id, addresses, since);
  const events: EventRow[] = [];
  let refused: TryLater | null = null;
  for (const address of addresses) {
    const seen = sent.get(address);
    if (!seen || seen.count < max) continue;
    const alerted = await log.loopAlertAt(inbox.id, address);
    if (alerted === undefined || alerted < seen.newest) {
      await log.setLoopAlert(inbox.id, address, at);
      events.push(
        await deps.store.events.append({
          type: 'inbox.loop_detected',
          userId: inbox.user_id,
          inboxId: inbox.id,
          data: { account: inbox.address, address, count: seen.count, windowMinutes: LOOP_WINDOW_MINUTES },
        }),
      );
    }
    if (refused) continue;
    const leaves = await log.nthSince(inbox.id, since, seen.count - max + 1, address);
    const wait = secondsUntil(leaves, LOOP_WINDOW_MS, at);
    refused = new TryLater(
      'loop_detected',
      `${inbox.address} sent ${seen.count} messages to ${address} in the last ${LOOP_WINDOW_MINUTES} minutes, ` +
        `the most the loop guard allows (MAILROOM_LOOP_LIMIT ${max}); this looks like a mail loop ` +
        `(an auto-reply answering an auto-reply?): nothing was sent; retry in ${wait} s`,
      wait,
      [
        {
          path: pathOf.get(address)!,
          message: `${address}: ${seen.count} messages in ${LOOP_WINDOW_MINUTES} minutes`,
        },
      ],
    );
  }
  return refused ? { refused, events } : null;
}

/** The inbox's limits per hour and per day, in recipients; the first one the send would pass refuses it. */
async function sendLimits(
  deps: MailboxDeps,
  inbox: InboxRow,
  count: number,
  at: Date,
): Promise<TryLater | null> {
  const limits = limitsOf(deps, inbox);
  if (count === 0 || (limits.perHour === 0 && limits.perDay === 0)) return null;
  const hourAgo = new Date(at.getTime() - HOUR_MS);
  const dayAgo = new Date(at.getTime() - DAY_MS);
  const sent = await deps.store.sendLog.counts(inbox.id, hourAgo, dayAgo);
  const windows = [
    {
      name: 'perHour',
      limit: limits.perHour,
      used: sent.lastHour,
      since: hourAgo,
      ms: HOUR_MS,
      span: 'hour',
    },
    { name: 'perDay', limit: limits.perDay, used: sent.lastDay, since: dayAgo, ms: DAY_MS, span: '24 hours' },
  ] as const;
  for (const w of windows) {
    if (w.limit === 0 || w.used + count <= w.limit) continue;
    const why = `${inbox.address} may send to ${w.limit} recipients in any ${w.span} (settings limits.${w.name})`;
    const detail = [{ path: `limits.${w.name}`, message: `limit ${w.name} ${w.limit}` }];
    if (count > w.limit) {
      const wait = Math.ceil(w.ms / 1000);
      return new TryLater(
        'rate_limited',
        `${why} and this message has ${count}: it can never go out whole; split it or raise the limit`,
        wait,
        detail,
      );
    }
    // Room for all of them once the oldest rows that make up the excess leave the window.
    const leaves = await deps.store.sendLog.nthSince(inbox.id, w.since, w.used + count - w.limit);
    const wait = secondsUntil(leaves, w.ms, at);
    return new TryLater(
      'rate_limited',
      `${why}; it sent to ${w.used} in the last ${w.span} and this message has ${count}: ` +
        `nothing was sent; retry in ${wait} s (limit ${w.name})`,
      wait,
      detail,
    );
  }
  return null;
}

/** Whole seconds (at least 1) from `at` until a row sent at `sentAt` leaves a window of `windowMs`. */
function secondsUntil(sentAt: string | undefined, windowMs: number, at: Date): number {
  const leaves = sentAt ? Date.parse(sentAt) + windowMs : at.getTime() + windowMs;
  return Math.max(1, Math.ceil((leaves - at.getTime()) / 1000));
}
