import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { DeleteEmailResult, UpdateEmailBody } from '../../contract/organise.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import { nowIso } from '../../store/ids.js';
import type { MessageRow } from '../../store/messages.js';
import { requireFolder, requireInbox, requireMessage } from '../access.js';
import { remoteOf, remoteUidOf, requireRemoteFolder } from '../backend.js';
import type { MailboxDeps } from '../deps.js';
import type { EmailView } from '../reading/email-view.js';
import { NotFound, Unprocessable, ValidationFailed } from '../errors.js';
import { correspondentsOf } from '../ingest/file-message.js';
import { viewsOf } from '../reading/read.js';
import { lockMessage } from './message-lock.js';
import { recordInTransaction } from '../audit/audit-context.js';

export const EMAIL_ACTIONS = ['read', 'unread', 'flag', 'unflag', 'move'] as const;
export type EmailAction = (typeof EMAIL_ACTIONS)[number];

export type EmailChange = Omit<z.infer<typeof UpdateEmailBody>, 'account'>;

export interface EmailRef {
  account: string;
  uid: number;
  /** When given, the message must be in this folder. */
  folder?: string;
}

export const isTrash = (folder: FolderRow) => folder.special_use === '\\Trash';
export const isDrafts = (folder: FolderRow) => folder.special_use === '\\Drafts';
export const isOutbox = (folder: FolderRow) => folder.special_use === '\\Outbox';

/** Outbox holds sends that wait (contract 15): they leave it only by going, or by a decision or a cancel. */
export function refuseOutbox(folder: FolderRow, doing: string): void {
  if (!isOutbox(folder)) return;
  throw new Unprocessable(
    `a send waiting in Outbox cannot be ${doing}: cancel it (POST /api/v1/emails/{uid}/cancel) to bring it back to Drafts`,
  );
}

/** The Trash of an inbox, by its special-use role so a renamed IMAP Trash is found too. */
export async function trashOf(deps: MailboxDeps, inbox: InboxRow): Promise<FolderRow> {
  const trash =
    (await deps.store.folders.findBySpecialUse(inbox.id, '\\Trash')) ??
    (await deps.store.folders.find(inbox.id, 'Trash'));
  if (!trash) throw new Error(`inbox ${inbox.address} has no Trash folder`);
  return trash;
}

/** Moves a message, keeping its uid; entering Trash starts its retention clock, leaving stops it. */
export async function moveMessage(deps: MailboxDeps, message: MessageRow, to: FolderRow): Promise<void> {
  if (message.folder_id === to.id) return;
  await deps.store.messages.moveTo(message.id, to.id, isTrash(to) ? nowIso() : null);
  // Taken out of Spam, it was received after all (approve_new's correspondents, contract 15).
  if ((await deps.store.folders.get(message.folder_id))?.special_use === '\\Junk') {
    await deps.store.correspondents.add(message.inbox_id, correspondentsOf(to, message.from_address, []));
  }
}

const FLAG_OF = { read: '\\Seen', unread: '\\Seen', flag: '\\Flagged', unflag: '\\Flagged' } as const;

/** PATCH /emails/{id}: read, unread, flag, unflag or move. Answers the email as it is afterwards. */
export async function updateEmail(
  deps: MailboxDeps,
  caller: Caller,
  ref: EmailRef,
  change: EmailChange,
): Promise<EmailView> {
  const inbox = await requireInbox(deps, caller, ref.account);
  const remote = remoteOf(deps, inbox);
  const plan = async () => {
    const { message, folder } = await requireMessage(deps, inbox, ref.uid, ref.folder);
    if (change.action !== 'move') return { message, folder, to: folder };
    if (change.folder === undefined)
      throw ValidationFailed.field('folder', 'folder is required with action move');
    const to = await requireFolder(deps, inbox, change.folder);
    if (to.id !== folder.id && (isOutbox(to) || isOutbox(folder))) {
      throw ValidationFailed.field(
        'folder',
        'nothing is moved in or out of Outbox: a waiting send leaves it when it goes, is decided, or is cancelled (POST /api/v1/emails/{uid}/cancel)',
      );
    }
    if (to.id !== folder.id && (isDrafts(to) || isDrafts(folder))) {
      throw ValidationFailed.field(
        'folder',
        'drafts cannot be moved in or out of Drafts; use the /emails/drafts routes to create, send or delete them',
      );
    }
    return { message, folder, to };
  };
  const apply = (message: MessageRow, to: FolderRow, remoteUid?: number | null) =>
    deps.store.db.transaction(async () => {
      const current = await lockMessage(deps, message);
      if (!current) throw new NotFound(`no email with uid ${message.uid} in ${inbox.address}`);
      if (change.action === 'move') {
        await moveMessage(deps, current, to);
        if (remoteUid !== undefined) await deps.store.imapState.setRemoteUid(current.id, remoteUid);
      } else {
        const flag = FLAG_OF[change.action];
        const flags = (JSON.parse(current.flags) as string[]).filter((f) => f !== flag);
        await deps.store.messages.setFlags(current.id, flagOn(change.action) ? [...flags, flag] : flags);
      }
      await recordInTransaction(deps, caller.audit, { account: inbox.address, target: String(current.uid) });
      const after = (await deps.store.messages.get(current.id))!;
      return (await viewsOf(deps, inbox, [after], () => to.name, 'full'))[0]!;
    });
  if (!remote) {
    return deps.store.db.transaction(async () => {
      const { message, to } = await plan();
      return apply(message, to);
    });
  }

  return remote.exclusive(async () => {
    const { message, folder, to } = await plan();
    const remoteUid = remoteUidOf(message);
    requireRemoteFolder(folder);
    if (change.action !== 'move') {
      const flag = [FLAG_OF[change.action]];
      await remote.setFlags(
        folder,
        remoteUid,
        flagOn(change.action) ? flag : [],
        flagOn(change.action) ? [] : flag,
      );
      return apply(message, to);
    }
    if (to.id === folder.id) return apply(message, to);
    return apply(message, to, await remote.move(folder, remoteUid, requireRemoteFolder(to)));
  });
}

const flagOn = (action: EmailAction) => action === 'read' || action === 'flag';

export type DeleteResult = z.infer<typeof DeleteEmailResult>;

/**
 * DELETE /emails/{id}: to Trash keeping the uid; deleted for good when it is already in Trash,
 * when `permanent` is set, or when it is a draft (a discarded draft is not mail worth keeping).
 * On a connected inbox the remote message moves to the remote Trash (or is expunged) first.
 */
export async function deleteEmail(
  deps: MailboxDeps,
  caller: Caller,
  ref: EmailRef,
  options: { permanent?: boolean } = {},
): Promise<DeleteResult> {
  const inbox = await requireInbox(deps, caller, ref.account);
  const remote = remoteOf(deps, inbox);
  const forGood = (folder: FolderRow) => !!options.permanent || isTrash(folder) || isDrafts(folder);
  const apply = (message: MessageRow, folder: FolderRow, remoteUid?: number | null): Promise<DeleteResult> =>
    deps.store.db.transaction(async () => {
      const current = await lockMessage(deps, message);
      if (!current) throw new NotFound(`no email with uid ${message.uid} in ${inbox.address}`);
      await recordInTransaction(deps, caller.audit, { account: inbox.address, target: String(current.uid) });
      if (forGood(folder)) {
        await deps.store.messages.remove(current.id);
        return { uid: current.uid, deleted: true, folder: null };
      }
      const trash = await trashOf(deps, inbox);
      await moveMessage(deps, current, trash);
      if (remoteUid !== undefined) await deps.store.imapState.setRemoteUid(current.id, remoteUid);
      return { uid: current.uid, deleted: false, folder: trash.name };
    });
  if (!remote) {
    return deps.store.db.transaction(async () => {
      const { message, folder } = await requireMessage(deps, inbox, ref.uid, ref.folder);
      refuseOutbox(folder, 'deleted');
      return apply(message, folder);
    });
  }
  return remote.exclusive(async () => {
    const { message, folder } = await requireMessage(deps, inbox, ref.uid, ref.folder);
    refuseOutbox(folder, 'deleted');
    const remoteUid = remoteUidOf(message);
    requireRemoteFolder(folder);
    if (forGood(folder)) {
      await remote.expunge(folder, remoteUid);
      return apply(message, folder);
    }
    const trash = requireRemoteFolder(await trashOf(deps, inbox));
    return apply(message, folder, await remote.move(folder, remoteUid, trash));
  });
}
