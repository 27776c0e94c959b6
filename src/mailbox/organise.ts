import type { FolderRow } from '../store/folders.js';
import type { InboxRow } from '../store/inboxes.js';
import { nowIso } from '../store/ids.js';
import type { MessageRow } from '../store/messages.js';
import { requireFolder, requireInbox, requireMessage } from './access.js';
import type { MailboxDeps } from './deps.js';
import type { EmailView } from './email-view.js';
import { ValidationFailed } from './errors.js';
import { viewsOf } from './read.js';

export const EMAIL_ACTIONS = ['read', 'unread', 'flag', 'unflag', 'move'] as const;
export type EmailAction = (typeof EMAIL_ACTIONS)[number];

export interface EmailChange {
  action: EmailAction;
  /** The destination of `move`. */
  folder?: string;
}

export interface EmailRef {
  account: string;
  uid: number;
  /** When given, the message must be in this folder. */
  folder?: string;
}

export const isTrash = (folder: FolderRow) => folder.special_use === '\\Trash';
export const isDrafts = (folder: FolderRow) => folder.special_use === '\\Drafts';

/** The Trash of an inbox, by its special-use role so a renamed IMAP Trash is found too. */
export function trashOf(deps: MailboxDeps, inbox: InboxRow): FolderRow {
  const trash =
    deps.store.folders.findBySpecialUse(inbox.id, '\\Trash') ?? deps.store.folders.find(inbox.id, 'Trash');
  if (!trash) throw new Error(`inbox ${inbox.address} has no Trash folder`);
  return trash;
}

/** Moves a message, keeping its uid; entering Trash starts its retention clock, leaving stops it. */
export function moveMessage(deps: MailboxDeps, message: MessageRow, to: FolderRow): void {
  if (message.folder_id === to.id) return;
  deps.store.messages.moveTo(message.id, to.id, isTrash(to) ? nowIso() : null);
}

const FLAG_OF = { read: '\\Seen', unread: '\\Seen', flag: '\\Flagged', unflag: '\\Flagged' } as const;

/** PATCH /emails/{id}: read, unread, flag, unflag or move. Answers the email as it is afterwards. */
export function updateEmail(
  deps: MailboxDeps,
  userId: number,
  ref: EmailRef,
  change: EmailChange,
): EmailView {
  const inbox = requireInbox(deps, userId, ref.account);
  return deps.store.db.transaction(() => {
    const found = requireMessage(deps, inbox, ref.uid, ref.folder);
    const { message } = found;
    let folder = found.folder;
    if (change.action === 'move') {
      if (change.folder === undefined)
        throw ValidationFailed.field('folder', 'folder is required with action move');
      const to = requireFolder(deps, inbox, change.folder);
      if (to.id !== folder.id && (isDrafts(to) || isDrafts(folder))) {
        throw ValidationFailed.field(
          'folder',
          'drafts cannot be moved in or out of Drafts; use the /emails/drafts routes to create, send or delete them',
        );
      }
      moveMessage(deps, message, to);
      folder = to;
    } else {
      const flag = FLAG_OF[change.action];
      const on = change.action === 'read' || change.action === 'flag';
      const flags = (JSON.parse(message.flags) as string[]).filter((f) => f !== flag);
      deps.store.messages.setFlags(message.id, on ? [...flags, flag] : flags);
    }
    return viewsOf(deps, inbox, [deps.store.messages.get(message.id)!], () => folder.name, 'full')[0]!;
  });
}

export interface DeleteResult {
  uid: number;
  /** true when the message is gone for good; false when it was moved to Trash. */
  deleted: boolean;
  /** Where the message is now: the Trash folder's name, or null when deleted. */
  folder: string | null;
}

/**
 * DELETE /emails/{id}: to Trash keeping the uid; deleted for good when it is already in Trash,
 * when `permanent` is set, or when it is a draft (a discarded draft is not mail worth keeping).
 */
export function deleteEmail(
  deps: MailboxDeps,
  userId: number,
  ref: EmailRef,
  options: { permanent?: boolean } = {},
): DeleteResult {
  const inbox = requireInbox(deps, userId, ref.account);
  return deps.store.db.transaction(() => {
    const { message, folder } = requireMessage(deps, inbox, ref.uid, ref.folder);
    if (options.permanent || isTrash(folder) || isDrafts(folder)) {
      deps.store.messages.remove(message.id);
      return { uid: message.uid, deleted: true, folder: null };
    }
    const trash = trashOf(deps, inbox);
    moveMessage(deps, message, trash);
    return { uid: message.uid, deleted: false, folder: trash.name };
  });
}
