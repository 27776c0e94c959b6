import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { Folder } from '../../contract/emails.js';
import type { DeleteFolderResult } from '../../contract/organise.js';
import { nowIso } from '../../store/ids.js';
import { requireFolder, requireInbox } from '../access.js';
import type { MailboxDeps } from '../deps.js';
import { Conflict, ValidationFailed } from '../errors.js';
import { trashOf } from './organise.js';
import { recordInTransaction } from '../audit/audit-context.js';

export const FOLDER_NAME_MAX = 100;

export type FolderView = z.infer<typeof Folder>;

/**
 * Why a folder name is unusable, or null. Taken trimmed; `/` is kept for a future hierarchy.
 * Names of dots alone are refused: `.` and `..` cannot travel in a URL path (clients resolve
 * them away), so such a folder could never be named in `DELETE /folders/{name}`.
 */
export function folderNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return `name is required: 1 to ${FOLDER_NAME_MAX} characters`;
  if ([...trimmed].length > FOLDER_NAME_MAX) return `name must be 1 to ${FOLDER_NAME_MAX} characters`;
  if (trimmed.includes('/')) return 'name must not contain "/"';
  if (/^\.+$/.test(trimmed)) return 'name must not be only dots ("." or "..")';
  if (/\p{Cc}/u.test(trimmed)) return 'name must not contain control characters';
  return null;
}

/** A custom folder. Names are unique per inbox whatever their case (409). */
export async function createFolder(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  name: string,
): Promise<FolderView> {
  const problem = folderNameProblem(name);
  if (problem) throw ValidationFailed.field('name', problem);
  const trimmed = name.trim();
  const inbox = await requireInbox(deps, caller, account);
  return deps.store.db.transaction(async () => {
    const wanted = trimmed.toLowerCase();
    const clash = (await deps.store.folders.listOf(inbox.id)).find((f) => f.name.toLowerCase() === wanted);
    if (clash) throw new Conflict(`a folder named ${JSON.stringify(clash.name)} exists in ${inbox.address}`);
    const folder = await deps.store.folders.create(inbox.id, trimmed);
    await recordInTransaction(deps, caller.audit, { account: inbox.address, target: folder.name });
    return { name: folder.name, specialUse: folder.special_use, total: 0, unread: 0 };
  });
}

export type DeletedFolder = z.infer<typeof DeleteFolderResult>;

/**
 * Deletes a custom folder. Its mail is not lost: it moves to Trash (uids kept) in the same
 * transaction, where the trash sweep or the user deals with it as with any deleted mail.
 */
export async function deleteFolder(
  deps: MailboxDeps,
  caller: Caller,
  account: string,
  name: string,
): Promise<DeletedFolder> {
  const inbox = await requireInbox(deps, caller, account);
  return deps.store.db.transaction(async () => {
    // Trimmed like a new name, which also lets " .." reach a ".." folder made before they were refused.
    const folder =
      (await deps.store.folders.find(inbox.id, name)) ?? (await requireFolder(deps, inbox, name.trim()));
    if (folder.special_use !== null) {
      throw ValidationFailed.field(
        'name',
        `${folder.name} is a standard folder and cannot be deleted; only folders you created can`,
      );
    }
    const trash = await trashOf(deps, inbox);
    const movedToTrash = await deps.store.messages.moveAll(folder.id, trash.id, nowIso());
    await deps.store.folders.remove(folder.id);
    await recordInTransaction(deps, caller.audit, { account: inbox.address, target: folder.name });
    return { name: folder.name, deleted: true, movedToTrash };
  });
}
