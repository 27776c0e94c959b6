import { composeDraft } from '../../mail/draft.js';
import { parseEmail } from '../../mail/parse.js';
import type { EventRow } from '../../store/events.js';
import type { HeldSendRow } from '../../store/held-sends.js';
import type { InboxRow } from '../../store/inboxes.js';
import { nowIso } from '../../store/ids.js';
import { recordInTransaction } from '../audit/audit-context.js';
import { remoteOf, requireRemoteFolder } from '../backend.js';
import type { MailboxDeps } from '../deps.js';
import { DRAFT_FLAGS } from '../drafts/drafts.js';
import { NotFound } from '../errors.js';
import { fileMessage, viewOfFiled } from '../ingest/file-message.js';
import { emailForEvent } from '../../events/payload.js';
import type { UnextractedEmailView } from '../reading/email-view.js';
import type { IdempotencyGuard } from '../sending/idempotency.js';
import { checkIdempotency, idempotencyConflict, rememberResponse } from '../sending/idempotency.js';
import type { Outgoing, SentCopy } from '../sending/outgoing-types.js';

/** What a send kept in Outbox answers besides the send's usual data (contract 15). */
export interface HeldAnswer {
  status: 'pending_approval' | 'scheduled';
  approvalId?: string;
  sendAt?: string;
}

/** What the stored MIME does not carry and the send needs when it goes. */
export interface HeldExtra {
  replyTo?: string[];
  headers?: Record<string, string>;
  /** The message a reply answers, flagged `\Answered` when it goes. */
  answeredId?: number;
}

export const approvalTtlMs = (deps: MailboxDeps) => deps.config.approvalTtlHours * 60 * 60 * 1000;

/**
 * Keeps a send in Outbox instead of sending it: waiting for a person (`approval`, why) or for
 * its time (`out.sendAt`), or both. The message (its draft form, bcc kept), the held_sends row,
 * the event and the remembered response are written in one transaction; a draft being sent
 * leaves Drafts in it and keeps its uid.
 */
export async function holdSend<R extends object>(
  deps: MailboxDeps,
  out: Outgoing,
  guard: IdempotencyGuard | null,
  shape: (sent: SentCopy) => R,
  approval: string | null,
): Promise<R & HeldAnswer> {
  const draft = out.draft;
  const remote = draft && draft.remote_uid !== null ? remoteOf(deps, out.inbox) : null;
  if (!draft || !remote) return holdLocally(deps, out, guard, shape, approval);
  // A connected inbox's draft leaves its server's Drafts too, in one turn with the sync, or the
  // next sync would bring it back into Drafts beside the held copy.
  return remote.exclusive(async () => {
    const held = await holdLocally(deps, out, guard, shape, approval);
    const folder = await deps.store.folders.get(draft.folder_id);
    try {
      if (folder) await remote.expunge(requireRemoteFolder(folder), draft.remote_uid!);
    } catch (error) {
      deps.log.warn(
        { account: out.inbox.address, err: (error as Error).message },
        'held, but its draft could not be removed from the mail server',
      );
    }
    return held;
  });
}

async function holdLocally<R extends object>(
  deps: MailboxDeps,
  out: Outgoing,
  guard: IdempotencyGuard | null,
  shape: (sent: SentCopy) => R,
  approval: string | null,
): Promise<R & HeldAnswer> {
  const { inbox, compose } = out;
  const { raw } = await composeDraft({
    from: compose.from,
    to: compose.to,
    cc: compose.cc ?? [],
    bcc: compose.bcc ?? [],
    subject: compose.subject,
    ...(compose.text !== undefined ? { text: compose.text } : {}),
    ...(compose.html !== undefined ? { html: compose.html } : {}),
    attachments: compose.attachments ?? [],
    inReplyTo: compose.inReplyTo ?? null,
    references: compose.references ?? [],
    messageIdDomain: compose.messageIdDomain,
    ...(compose.messageId ? { messageId: compose.messageId } : {}),
  });
  const parsed = await parseEmail(raw);
  const extra: HeldExtra = {
    ...(compose.replyTo?.length ? { replyTo: compose.replyTo } : {}),
    ...(compose.headers ? { headers: compose.headers } : {}),
    ...(out.answered ? { answeredId: out.answered.id } : {}),
  };
  const { store } = deps;
  const now = new Date();
  const sendAt = out.sendAt ? nowIso(out.sendAt) : null;
  const expiresAt = approval ? nowIso(new Date(now.getTime() + approvalTtlMs(deps))) : null;
  const events: EventRow[] = [];
  const result = await store.groupCommit.submit(async () => {
    events.length = 0;
    const seen = await checkIdempotency(deps, guard);
    if (seen) return seen;
    if (out.draft) {
      const current = await store.messages.get(out.draft.id);
      if (!current || current.folder_id !== out.draft.folder_id) return { kind: 'draft-gone' as const };
      await store.messages.remove(current.id);
    }
    const folder = await outboxOf(deps, inbox);
    const row = await fileMessage(store, {
      inbox,
      folder,
      parsed,
      raw,
      // A draft that waits, so that it is one again if it comes back.
      flags: DRAFT_FLAGS,
      receivedAt: now,
      bcc: out.bcc,
      ...(out.draft ? { uid: out.draft.uid, threadId: out.draft.thread_id } : {}),
    });
    const held = await store.heldSends.insert({
      inbox_id: inbox.id,
      message_id: row.id,
      uid: row.uid,
      state: approval ? 'pending' : 'scheduled',
      requested_by: out.requestedBy ?? null,
      approval: approval ? 1 : 0,
      send_at: sendAt,
      expires_at: expiresAt,
      due_at: expiresAt ?? sendAt,
      reason: approval,
      extra: JSON.stringify(extra),
    });
    const view = viewOfFiled(row, folder, parsed, true);
    events.push(
      approval
        ? await appendHeldEvent(deps, 'email.pending_approval', inbox, held, view, {
            requestedBy: held.requested_by,
            reason: approval,
          })
        : await appendHeldEvent(deps, 'email.scheduled', inbox, held, view, { sendAt: sendAt! }),
    );
    const answer: HeldAnswer = approval
      ? { status: 'pending_approval', approvalId: held.id, ...(sendAt ? { sendAt } : {}) }
      : { status: 'scheduled', sendAt: sendAt! };
    const response = { ...shape({ view, delivery: [] }), savedToSent: false, ...answer };
    await rememberResponse(deps, guard, response);
    await recordInTransaction(deps, out.audit, {
      account: inbox.address,
      target: out.audit?.target ?? String(row.uid),
    });
    return { kind: 'held' as const, response };
  });
  deps.bus.publish(events);
  switch (result.kind) {
    case 'held':
      return result.response;
    case 'replay':
      return result.response as R & HeldAnswer;
    case 'conflict':
      throw idempotencyConflict();
    case 'draft-gone':
      throw new NotFound(`no draft with uid ${out.draft?.uid} in ${inbox.address}`);
  }
}

export async function outboxOf(deps: MailboxDeps, inbox: InboxRow) {
  const folder = await deps.store.folders.findBySpecialUse(inbox.id, '\\Outbox');
  if (!folder) throw new Error(`inbox ${inbox.address} has no Outbox folder`);
  return folder;
}

/** Records one of contract 15's events about a held send: its Email, its id, and `extra`. */
export async function appendHeldEvent(
  deps: MailboxDeps,
  type: 'email.pending_approval' | 'email.approved' | 'email.rejected' | 'email.scheduled',
  inbox: InboxRow,
  held: HeldSendRow,
  view: UnextractedEmailView,
  extra: Record<string, unknown>,
): Promise<EventRow> {
  return deps.store.events.append({
    type,
    userId: inbox.user_id,
    inboxId: inbox.id,
    data: {
      account: inbox.address,
      email: emailForEvent(view),
      approvalId: held.approval ? held.id : null,
      ...extra,
    },
  });
}
