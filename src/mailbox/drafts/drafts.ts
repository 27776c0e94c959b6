import { composeDraft } from '../../mail/draft.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordInTransaction } from '../audit/audit-context.js';
import type { Caller } from '../caller.js';
import { parseEmail } from '../../mail/parse.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MessageRow } from '../../store/messages.js';
import { requireInbox, requireMessage } from '../access.js';
import { remoteOf, remoteUidOf, requireRemoteFolder } from '../backend.js';
import type { MailboxDeps } from '../deps.js';
import type { DraftFields, DraftState } from './draft-content.js';
import { EMPTY_DRAFT, composeInputOf, mergeDraft, stateOf } from './draft-content.js';
import type { z } from '@hono/zod-openapi';
import type { Draft } from '../../contract/send.js';
import type { UnextractedEmailView } from '../reading/email-view.js';
import { NotFound, TooLarge, ValidationFailed } from '../errors.js';
import { fileMessage, viewOfFiled } from '../ingest/file-message.js';
import { idempotencyGuard, withIdempotency } from '../sending/idempotency.js';
import { dispatch } from '../sending/outgoing.js';
import {
  InputProblems,
  checkRecipientCount,
  distinctAddresses,
  readSendAt,
} from '../sending/outgoing-input.js';
import type { SendOptions, SendResult } from '../sending/send.js';
import { sendResultOf } from '../sending/send.js';

/** Source 2.3 plus the threading fields an Email has (src/contract/send.ts). */
export type DraftView = z.infer<typeof Draft>;

export const DRAFT_FLAGS = ['\\Seen', '\\Draft'];

function draftViewOf(view: UnextractedEmailView): DraftView {
  return {
    uid: view.uid,
    threadId: view.threadId,
    messageId: view.messageId,
    from: view.from,
    to: view.to,
    cc: view.cc,
    bcc: view.bcc ?? [],
    subject: view.subject,
    text: view.text,
    html: view.html ?? '',
    attachments: view.attachments,
    inReplyTo: view.inReplyTo,
    references: view.references,
    date: view.date,
    flags: view.flags,
  };
}

/** Composes the draft's MIME and files it into Drafts, replacing `existing` under the same uid. */
async function storeDraft(
  deps: MailboxDeps,
  inbox: InboxRow,
  state: DraftState,
  audit: AuditContext | undefined,
  existing?: { row: MessageRow; keepThread: boolean },
): Promise<DraftView> {
  const { raw } = await composeDraft(composeInputOf(deps, inbox, state));
  const limit = deps.config.maxMessageBytes;
  if (raw.length > limit) throw new TooLarge(`the draft is ${raw.length} bytes; the limit is ${limit}`);
  const parsed = await parseEmail(raw);
  const { store } = deps;
  const folder = await store.folders.find(inbox.id, 'Drafts');
  if (!folder) throw new Error(`inbox ${inbox.address} has no Drafts folder`);
  const file = (remoteUid: number | null) =>
    store.groupCommit.submit(async () => {
      if (existing) {
        const current = await store.messages.get(existing.row.id);
        if (!current || current.folder_id !== folder.id) return null;
        await store.messages.remove(current.id);
      }
      const row = await fileMessage(store, {
        inbox,
        folder,
        parsed,
        raw,
        flags: DRAFT_FLAGS,
        receivedAt: new Date(),
        bcc: state.bcc.addresses,
        ...(existing ? { uid: existing.row.uid } : {}),
        ...(existing?.keepThread ? { threadId: existing.row.thread_id } : {}),
      });
      if (remoteUid !== null) await store.imapState.setRemoteUid(row.id, remoteUid);
      await recordInTransaction(deps, audit, { account: inbox.address, target: String(row.uid) });
      // Read back for the remote uid just set; the text and html are the filed row's.
      return viewOfFiled({ ...row, ...(await store.messages.get(row.id))! }, folder, parsed, true);
    });
  const remote = remoteOf(deps, inbox);
  const view = remote
    ? await remote.exclusive(async () => {
        if (existing && !(await store.messages.get(existing.row.id))) return null;
        // Append the new version before removing the old, so a failure never loses the draft.
        const remoteUid = await remote.append(requireRemoteFolder(folder), raw, DRAFT_FLAGS);
        const oldUid = existing?.row.remote_uid;
        if (oldUid !== null && oldUid !== undefined) await remote.expunge(folder, oldUid);
        return file(remoteUid);
      })
    : await file(null);
  if (!view) throw new NotFound(`no draft with uid ${existing?.row.uid} in ${inbox.address}`);
  return draftViewOf(view);
}

async function loadDraft(deps: MailboxDeps, inbox: InboxRow, uid: number) {
  const { message } = await requireMessage(deps, inbox, uid, 'Drafts');
  const raw = await deps.store.messages.raw(message.id);
  if (!raw) throw new NotFound(`draft ${uid} has no stored source`);
  return { row: message, state: stateOf(await parseEmail(raw)) };
}

/** POST /emails/drafts */
export async function createDraft(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  fields: DraftFields,
): Promise<DraftView> {
  const inbox = await requireInbox(deps, caller, account);
  const state = await mergeDraft(deps, inbox, EMPTY_DRAFT, fields);
  return storeDraft(deps, inbox, state, caller.audit);
}

/** PUT /emails/drafts/{uid}: fields given replace, fields absent stay (contract 5). */
export async function updateDraft(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
  fields: DraftFields,
): Promise<DraftView> {
  const inbox = await requireInbox(deps, caller, account);
  const draft = await loadDraft(deps, inbox, uid);
  const state = await mergeDraft(deps, inbox, draft.state, fields);
  return storeDraft(deps, inbox, state, caller.audit, {
    row: draft.row,
    keepThread: fields.inReplyTo === undefined,
  });
}

/** POST /emails/drafts/{uid}/send: sent like a new message; it leaves Drafts and keeps its uid in Sent. */
export async function sendDraft(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
  options: SendOptions & { sendAt?: string } = {},
): Promise<SendResult> {
  const guard = idempotencyGuard(caller.userId, options.idempotencyKey, 'draft-send', {
    account,
    uid,
    ...(options.sendAt ? { sendAt: options.sendAt } : {}),
  });
  // Reach before a replay: the key is the user's, and another of their keys may reach less.
  const inbox = await requireInbox(deps, caller, account);
  return withIdempotency(deps, guard, async () => {
    const { row, state } = await loadDraft(deps, inbox, uid);
    const count = distinctAddresses(state.to.addresses, state.cc.addresses, state.bcc.addresses).length;
    if (count === 0) throw ValidationFailed.field('to', 'the draft has no recipient yet');
    const problems = new InputProblems();
    checkRecipientCount(count, deps.config.maxRecipients, problems);
    const sendAt = readSendAt(options.sendAt, problems);
    problems.throwIfAny();
    return dispatch(
      deps,
      {
        inbox,
        audit: caller.audit,
        bcc: state.bcc.addresses,
        draft: row,
        requestedBy: caller.keyId,
        ...(sendAt ? { sendAt } : {}),
        compose: composeInputOf(deps, inbox, state),
      },
      guard,
      sendResultOf,
    );
  });
}

/** DELETE /emails/drafts/{uid}: removed for good, never sent. */
export async function deleteDraft(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  uid: number,
): Promise<{ uid: number; deleted: true }> {
  const inbox = await requireInbox(deps, caller, account);
  const remote = remoteOf(deps, inbox);
  const remove = async () => {
    const { message, folder } = await requireMessage(deps, inbox, uid, 'Drafts');
    if (remote) await remote.expunge(requireRemoteFolder(folder), remoteUidOf(message));
    await deps.store.db.transaction(async () => {
      await deps.store.messages.remove(message.id);
      await recordInTransaction(deps, caller.audit, { account: inbox.address, target: String(uid) });
    });
    return { uid, deleted: true as const };
  };
  return remote ? remote.exclusive(remove) : remove();
}
