import { splitTag } from '../../mail/addresses.js';
import { composeMessage } from '../../mail/compose.js';
import { parseEmail } from '../../mail/parse.js';
import type { DeliveryStatus } from '../../db/schema.js';
import type { EventRow } from '../../store/events.js';
import type { InboxRow } from '../../store/inboxes.js';
import { remoteOf } from '../backend.js';
import type { BounceNotice } from './bounce.js';
import { fileBounce, prepareBounce } from './bounce.js';
import type { MailboxDeps } from '../deps.js';
import type { TryLater } from '../errors.js';
import { Conflict, NotFound, TooLarge, ValidationFailed } from '../errors.js';
import { holdSend } from '../approvals/hold.js';
import { countSend } from '../limits/send-counters.js';
import { appendEmailEvent, fileMessage, viewOfFiled } from '../ingest/file-message.js';
import type { IdempotencyCheck, IdempotencyGuard } from './idempotency.js';
import { checkIdempotency, idempotencyConflict, rememberResponse } from './idempotency.js';
import { dispatchRemote } from './outgoing-remote.js';
import { checkSendPolicy, outgoingRecipients } from './send-policy.js';
import type { Outgoing, SentCopy } from './outgoing-types.js';
import { fileForEach } from '../ingest/receive.js';
import { addFlag } from '../organising/message-lock.js';
import { recordInTransaction } from '../audit/audit-context.js';

type Route =
  | { address: string; kind: 'local'; inbox: InboxRow }
  | { address: string; kind: 'unknown' }
  | { address: string; kind: 'external' };

type Work<R> =
  | Exclude<IdempotencyCheck, null>
  | { kind: 'sent'; response: R }
  | { kind: 'draft-gone' }
  | { kind: 'refused'; error: TryLater };

/**
 * Sends: the Sent copy (`\Seen`, bcc kept), local recipients' copies, a queue row per other
 * recipient, the bounce for unknown local addresses and the events, all in one transaction.
 * The response is shaped (and remembered under the Idempotency-Key) inside it too, so a retry
 * racing the first request either replays it or waits behind it, never sends twice.
 */
export async function dispatch<R extends object>(
  deps: MailboxDeps,
  out: Outgoing,
  guard: IdempotencyGuard | null,
  shape: (sent: SentCopy) => R,
): Promise<R> {
  const { inbox } = out;
  const recipients = outgoingRecipients(out);
  const verdict = await checkSendPolicy(deps, inbox, recipients);
  const remote = remoteOf(deps, inbox);
  let composed;
  try {
    composed = await composeMessage(out.compose);
  } catch (error) {
    throw new ValidationFailed((error as Error).message);
  }
  const limit = deps.config.maxMessageBytes;
  if (composed.raw.length > limit) {
    throw new TooLarge(`the message is ${composed.raw.length} bytes; the limit is ${limit}`);
  }
  // A held send going out was decided already: the mode asked when it was held.
  if (!out.held && (verdict.approval !== null || out.sendAt)) {
    return holdSend(deps, out, guard, shape, verdict.approval);
  }
  const parsed = await parseEmail(composed.raw);
  if (remote) return dispatchRemote(deps, remote, out, { composed, parsed, recipients }, guard, shape);
  const sentAt = composed.date;
  const routes: Route[] = [];
  for (const address of composed.envelope.to) routes.push(await routeOf(deps, address));
  const unknown = routes.filter((r) => r.kind === 'unknown');
  const bounce: BounceNotice | null = unknown.length
    ? await prepareBounce(
        deps,
        { inbox, raw: composed.raw, messageId: composed.messageId, subject: out.compose.subject, sentAt },
        unknown.map((r) => ({
          recipient: r.address,
          status: '5.1.1',
          diagnostic: `550 5.1.1 <${r.address}>: no such mailbox here`,
          remoteMta: deps.config.hostname,
          lastAttempt: sentAt,
        })),
      )
    : null;
  const external: DeliveryStatus = deps.config.outbound === 'sandbox' ? 'captured' : 'queued';
  const statusOf = (r: Route): DeliveryStatus =>
    r.kind === 'local' ? 'delivered' : r.kind === 'unknown' ? 'failed' : external;

  const events: EventRow[] = [];
  const work = async (): Promise<Work<R>> => {
    events.length = 0;
    const seen = await checkIdempotency(deps, guard);
    if (seen) return seen;
    await deps.store.inboxes.holdInOrder([
      inbox.id,
      ...routes.flatMap((r) => (r.kind === 'local' ? [r.inbox.id] : [])),
    ]);
    // Returned, not thrown: a refusal must not roll back the batch it shares, nor its own event.
    const counted = await countSend(deps, inbox, recipients, new Date());
    if (counted.refused) {
      events.push(...counted.events);
      return { kind: 'refused', error: counted.refused };
    }
    const { store } = deps;
    if (
      out.held &&
      !(await store.heldSends.change(out.held.id, out.held.from, { state: 'sent', due_at: null }))
    ) {
      return { kind: 'draft-gone' };
    }
    if (out.draft) {
      const current = await store.messages.get(out.draft.id);
      if (!current || current.folder_id !== out.draft.folder_id) return { kind: 'draft-gone' };
      await store.messages.remove(current.id);
    }
    const folder = await store.folders.find(inbox.id, 'Sent');
    if (!folder) throw new Error(`inbox ${inbox.address} has no Sent folder`);
    const delivery = routes.map((r) => ({ recipient: r.address, status: statusOf(r) }));
    const row = await fileMessage(store, {
      inbox,
      folder,
      parsed,
      raw: composed.raw,
      flags: ['\\Seen'],
      receivedAt: sentAt,
      bcc: out.bcc,
      delivery,
      ...(out.draft ? { uid: out.draft.uid, threadId: out.draft.thread_id } : {}),
    });
    await store.deliveries.insert(
      routes.map((r) => ({
        messageId: row.id,
        recipient: r.address,
        status: statusOf(r),
        nextAttemptAt: statusOf(r) === 'queued' ? sentAt.toISOString() : null,
        lastError: r.kind === 'unknown' ? `550 5.1.1 <${r.address}>: no such mailbox here` : null,
      })),
      sentAt,
    );
    const view = viewOfFiled(row, folder, parsed, true);
    if (out.held) events.push(...(await out.held.onSent(view)));
    events.push(await appendEmailEvent(store, 'email.sent', inbox, row, view));
    const locals = new Map<number, InboxRow>();
    for (const r of routes) if (r.kind === 'local') locals.set(r.inbox.id, r.inbox);
    if (locals.size > 0) {
      await fileForEach(
        deps,
        { raw: composed.raw, inboxes: [...locals.values()], receivedAt: sentAt, sourceId: row.source_id },
        parsed,
        events,
      );
    }
    if (bounce) events.push(...(await fileBounce(deps, bounce, row.id)));
    if (out.answered) await markAnswered(deps, out.answered.id);
    const response = shape({ view, delivery });
    await rememberResponse(deps, guard, response);
    await recordInTransaction(deps, out.audit, {
      account: inbox.address,
      target: out.audit?.target ?? String(view.uid),
    });
    return { kind: 'sent', response };
  };

  const result = await deps.store.groupCommit.submit(work);
  deps.bus.publish(events);
  switch (result.kind) {
    case 'sent':
      return result.response;
    case 'replay':
      return result.response as R;
    case 'conflict':
      throw idempotencyConflict();
    case 'draft-gone':
      if (out.held) throw new Conflict(`the send ${out.held.id} was decided, cancelled or sent meanwhile`);
      throw new NotFound(`no draft with uid ${out.draft?.uid} in ${inbox.address}`);
    case 'refused':
      throw result.error;
  }
}

/** Where a recipient's copy goes: a local inbox (`+tag` ignored), nowhere (unknown on a hosted domain), or out. */
async function routeOf(deps: MailboxDeps, address: string): Promise<Route> {
  const { base } = splitTag(address.toLowerCase());
  const inbox = await deps.store.inboxes.findByAddress(base);
  if (inbox && inbox.kind === 'local') return { address, kind: 'local', inbox };
  const domain = base.split('@')[1] ?? '';
  if (!inbox && (await deps.store.domains.find(domain))) return { address, kind: 'unknown' };
  return { address, kind: 'external' };
}

export function markAnswered(deps: MailboxDeps, messageId: number): Promise<void> {
  return addFlag(deps, messageId, '\\Answered');
}
