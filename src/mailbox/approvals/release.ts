import type { HeldState } from '../../db/schema.js';
import { parseEmail } from '../../mail/parse.js';
import type { EventRow } from '../../store/events.js';
import type { HeldSendRow } from '../../store/held-sends.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MessageRow } from '../../store/messages.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordInTransaction } from '../audit/audit-context.js';
import type { MailboxDeps } from '../deps.js';
import { remoteOf, requireRemoteFolder } from '../backend.js';
import { composeInputOf, stateOf } from '../drafts/draft-content.js';
import { DRAFT_FLAGS } from '../drafts/drafts.js';
import { Conflict, MailroomError } from '../errors.js';
import { moveMessage } from '../organising/organise.js';
import type { EmailView } from '../reading/email-view.js';
import { viewsOf } from '../reading/read.js';
import { dispatch } from '../sending/outgoing.js';
import type { Outgoing, SentCopy } from '../sending/outgoing-types.js';
import type { HeldExtra } from './hold.js';
import { appendHeldEvent } from './hold.js';

/** The Email of one message where it is, read whole. */
export async function fullView(deps: MailboxDeps, inbox: InboxRow, message: MessageRow): Promise<EmailView> {
  const folder = await deps.store.folders.get(message.folder_id);
  const [view] = await viewsOf(deps, inbox, [message], () => folder?.name ?? '', 'full');
  return view!;
}

export function alreadyDecided(held: HeldSendRow): Conflict {
  const what =
    held.state === 'sent'
      ? 'it was sent'
      : held.state === 'scheduled'
        ? `it was approved and goes at ${held.send_at}`
        : `it is back in Drafts (${held.reason})`;
  return new Conflict(`${held.id} was already decided: ${what}`);
}

/**
 * Sends a held send now, as a normal send with its message in Outbox as the draft: lists and
 * limits checked again, the held row marked sent in the send's own transaction (a second
 * attempt, on any node, finds it gone). A rule refusing it then sends it back to Drafts with
 * the refusal as its reason, and the refusal is thrown.
 */
export async function releaseHeld(
  deps: MailboxDeps,
  inbox: InboxRow,
  held: HeldSendRow,
  from: readonly HeldState[],
  approvedBy: { decidedBy: string | null; audit?: AuditContext | undefined } | null,
): Promise<SentCopy> {
  const message = held.message_id === null ? undefined : await deps.store.messages.get(held.message_id);
  if (!message) throw alreadyDecided(held);
  const raw = await deps.store.messages.raw(message.id);
  if (!raw) throw new Error(`held send ${held.id} has no stored source`);
  const state = stateOf(await parseEmail(raw));
  const extra = JSON.parse(held.extra) as HeldExtra;
  const answered = extra.answeredId ? await deps.store.messages.get(extra.answeredId) : undefined;
  const out: Outgoing = {
    inbox,
    bcc: state.bcc.addresses,
    draft: message,
    ...(approvedBy?.audit ? { audit: approvedBy.audit } : {}),
    ...(answered ? { answered } : {}),
    compose: {
      ...composeInputOf(deps, inbox, state),
      ...(extra.replyTo ? { replyTo: extra.replyTo } : {}),
      ...(extra.headers ? { headers: extra.headers } : {}),
    },
    held: {
      id: held.id,
      from,
      onSent: async (view) =>
        approvedBy
          ? [
              await appendHeldEvent(deps, 'email.approved', inbox, held, view, {
                decidedBy: approvedBy.decidedBy,
              }),
            ]
          : [],
    },
  };
  try {
    return await dispatch(deps, out, null, (copy) => copy);
  } catch (error) {
    if (isRefusal(error)) await sendBack(deps, inbox, held, from, `${error.code}: ${error.message}`, null);
    throw error;
  }
}

/** A rule's answer that will not change by trying again now (a conflict is someone else's decision). */
export function isRefusal(error: unknown): error is MailroomError {
  return (
    error instanceof MailroomError &&
    !['conflict', 'upstream_error', 'unavailable', 'internal_error'].includes(error.code)
  );
}

/**
 * Brings a held send back to Drafts with `reason` (rejected, cancelled, expired, a refusal),
 * in one transaction with its state, the email.rejected event and the request's record
 * (`audited`, when a request asked); null when it had left `from` meanwhile (decided elsewhere).
 */
export async function sendBack(
  deps: MailboxDeps,
  inbox: InboxRow,
  held: HeldSendRow,
  from: readonly HeldState[],
  reason: string,
  decidedBy: string | null,
  audited?: { audit: AuditContext | undefined; target: string },
): Promise<EmailView | null> {
  const { store } = deps;
  const events: EventRow[] = [];
  const view = await store.db.transaction(async () => {
    const changed = await store.heldSends.change(held.id, from, {
      state: 'rejected',
      reason,
      due_at: null,
      decided_by: decidedBy,
    });
    if (!changed) return null;
    const message = held.message_id === null ? undefined : await store.messages.get(held.message_id);
    if (!message) return null;
    const drafts = await store.folders.findBySpecialUse(inbox.id, '\\Drafts');
    if (!drafts) throw new Error(`inbox ${inbox.address} has no Drafts folder`);
    await moveMessage(deps, message, drafts);
    await store.messages.setRejectedReason(message.id, reason);
    const moved = await fullView(deps, inbox, { ...message, folder_id: drafts.id, rejected_reason: reason });
    events.push(await appendHeldEvent(deps, 'email.rejected', inbox, held, moved, { reason }));
    if (audited)
      await recordInTransaction(deps, audited.audit, { account: inbox.address, target: audited.target });
    return moved;
  });
  deps.bus.publish(events);
  if (view && held.message_id !== null) await draftBackOnServer(deps, inbox, held.message_id);
  return view;
}

/**
 * A connected inbox's send, back in Drafts, goes back to its server's Drafts too (the hold took
 * it out there) and is linked to the copy there, as a saved draft is: else it could be neither
 * deleted nor updated on the server. A server that refuses leaves it local with a warning; the
 * draft is kept either way.
 */
async function draftBackOnServer(deps: MailboxDeps, inbox: InboxRow, messageId: number): Promise<void> {
  const remote = remoteOf(deps, inbox);
  if (!remote) return;
  const { store } = deps;
  await remote
    .exclusive(async () => {
      const message = await store.messages.get(messageId);
      if (!message || message.remote_uid !== null) return;
      const folder = await store.folders.get(message.folder_id);
      const raw = await store.messages.raw(message.id);
      if (!folder || !raw) return;
      const remoteUid = await remote.append(requireRemoteFolder(folder), raw, DRAFT_FLAGS);
      if (remoteUid !== null) await store.imapState.setRemoteUid(message.id, remoteUid);
    })
    .catch((error: unknown) =>
      deps.log.warn(
        { account: inbox.address, err: (error as Error).message },
        'back in Drafts, but not on the mail server',
      ),
    );
}
