import type { ApprovalView, DecisionView } from '../../contract/approvals.js';
import type { HeldSendRow } from '../../store/held-sends.js';
import { OPEN_STATES } from '../../store/held-sends.js';
import type { InboxRow } from '../../store/inboxes.js';
import { reachableInboxes, reaches, requireInbox } from '../access.js';
import type { Caller } from '../caller.js';
import { requirePermission } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { Forbidden, NotFound } from '../errors.js';
import type { EmailView } from '../reading/email-view.js';
import { appendHeldEvent } from './hold.js';
import { recordInTransaction } from '../audit/audit-context.js';
import { alreadyDecided, fullView, releaseHeld, sendBack } from './release.js';

/** `GET /approvals` (needs `read`): sends waiting for a decision in the caller's inboxes, oldest first. */
export async function listApprovals(
  deps: MailboxDeps,
  caller: Caller,
  query: { account?: string | undefined; limit?: number },
): Promise<ApprovalView[]> {
  requirePermission(caller, 'read');
  const inboxes = query.account
    ? [await requireInbox(deps, caller, query.account)]
    : await reachableInboxes(deps, caller);
  const byId = new Map(inboxes.map((inbox) => [inbox.id, inbox]));
  const rows = await deps.store.heldSends.pending([...byId.keys()], query.limit ?? 100);
  const out: ApprovalView[] = [];
  for (const held of rows) {
    const inbox = byId.get(held.inbox_id)!;
    const message = held.message_id === null ? undefined : await deps.store.messages.get(held.message_id);
    if (!message) continue;
    out.push({
      id: held.id,
      account: inbox.address,
      email: await fullView(deps, inbox, message),
      requestedBy: held.requested_by,
      reason: held.reason ?? '',
      sendAt: held.send_at,
      expiresAt: held.expires_at ?? '',
      created_at: held.created_at,
    });
  }
  return out;
}

/** How many sends wait for a decision in the caller's inboxes (the dashboard's navigation). */
export async function countApprovals(deps: MailboxDeps, caller: Caller): Promise<number> {
  const inboxes = await reachableInboxes(deps, caller);
  return deps.store.heldSends.countPending(inboxes.map((inbox) => inbox.id));
}

/** A decision's checks (contract 15): `approve`, the inbox in reach, still waiting, not the requester. */
async function requireDecidable(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
): Promise<{ held: HeldSendRow; inbox: InboxRow }> {
  requirePermission(caller, 'approve');
  const held = await deps.store.heldSends.get(id);
  const inbox = held ? await deps.store.inboxes.get(held.inbox_id) : undefined;
  if (!held || !held.approval || !inbox || !reaches(caller, inbox)) {
    throw new NotFound(`no approval ${id} in your inboxes`);
  }
  if (held.state !== 'pending') throw alreadyDecided(held);
  if (caller.keyId !== null && held.requested_by === caller.keyId) {
    throw new Forbidden(
      `this key requested ${id} itself, and a key never decides its own send; ` +
        'another key with the approve permission, or a person in the dashboard, decides it',
    );
  }
  return { held, inbox };
}

/**
 * `POST /approvals/{id}/approve`: it goes out now as a normal send (lists and limits checked
 * again; a refusal is the answer and it goes back to Drafts), or at its sendAt when that is
 * still to come.
 */
export async function approveSend(deps: MailboxDeps, caller: Caller, id: string): Promise<DecisionView> {
  const { held, inbox } = await requireDecidable(deps, caller, id);
  const decision = { id, account: inbox.address, decision: 'approved' as const };
  if (held.send_at && Date.parse(held.send_at) > Date.now()) {
    const email = await scheduleApproved(deps, inbox, held, caller);
    return { ...decision, status: 'scheduled', email };
  }
  // The send's transaction writes the record; its target is the approval, as the door names it.
  if (caller.audit) caller.audit.target = id;
  const sent = await releaseHeld(deps, inbox, held, ['pending'], {
    decidedBy: caller.keyId,
    audit: caller.audit,
  });
  const message = await deps.store.messages.getByUid(inbox.id, sent.view.uid);
  return { ...decision, status: 'sent', email: await fullView(deps, inbox, message!) };
}

/** Approved before its time: it waits in Outbox for sendAt, no longer for a person. */
async function scheduleApproved(
  deps: MailboxDeps,
  inbox: InboxRow,
  held: HeldSendRow,
  caller: Caller,
): Promise<EmailView> {
  const { store } = deps;
  const decidedBy = caller.keyId;
  const email = await store.db.transaction(async () => {
    const changed = await store.heldSends.change(held.id, ['pending'], {
      state: 'scheduled',
      due_at: held.send_at,
      expires_at: null,
      decided_by: decidedBy,
    });
    const message = held.message_id === null ? undefined : await store.messages.get(held.message_id);
    if (!changed || !message) throw alreadyDecided((await store.heldSends.get(held.id)) ?? held);
    const view = await fullView(deps, inbox, message);
    await recordInTransaction(deps, caller.audit, { account: inbox.address, target: held.id });
    return { view, event: await appendHeldEvent(deps, 'email.approved', inbox, held, view, { decidedBy }) };
  });
  deps.bus.publish([email.event]);
  return email.view;
}

/** `POST /approvals/{id}/reject`: back to Drafts with the reason (default `rejected`). */
export async function rejectSend(
  deps: MailboxDeps,
  caller: Caller,
  id: string,
  reason?: string,
): Promise<DecisionView> {
  const { held, inbox } = await requireDecidable(deps, caller, id);
  const email = await sendBack(deps, inbox, held, ['pending'], reason ?? 'rejected', caller.keyId, {
    audit: caller.audit,
    target: id,
  });
  if (!email) throw alreadyDecided((await deps.store.heldSends.get(id)) ?? held);
  return { id, account: inbox.address, decision: 'rejected', status: 'rejected', email };
}

/** `POST /emails/{uid}/cancel` (needs `send`): a scheduled or waiting send back to Drafts (`cancelled`). */
export async function cancelSend(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
): Promise<EmailView> {
  requirePermission(caller, 'send');
  const inbox = await requireInbox(deps, caller, account);
  const held = await deps.store.heldSends.openByUid(inbox.id, uid);
  if (!held) throw new NotFound(`no scheduled or waiting send with uid ${uid} in ${inbox.address}'s Outbox`);
  const email = await sendBack(deps, inbox, held, OPEN_STATES, 'cancelled', caller.keyId, {
    audit: caller.audit,
    target: String(uid),
  });
  if (!email) throw alreadyDecided((await deps.store.heldSends.get(held.id)) ?? held);
  return email;
}
