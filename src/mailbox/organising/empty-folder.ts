import type { z } from '@hono/zod-openapi';
import type { Caller } from '../caller.js';
import type { EmptyFolderResult } from '../../contract/organise.js';
import { nowIso } from '../../store/ids.js';
import type { MessageRow } from '../../store/messages.js';
import { requireFolder, requireInbox } from '../access.js';
import { remoteOf, remoteUidOf, requireRemoteFolder } from '../backend.js';
import type { MailboxDeps } from '../deps.js';
import { isDrafts, isTrash, refuseOutbox, trashOf } from './organise.js';
import { recordInTransaction } from '../audit/audit-context.js';

export type EmptiedFolder = z.infer<typeof EmptyFolderResult>;

type Listed = Pick<MessageRow, 'id' | 'uid' | 'remote_uid'>;

/**
 * `DELETE /emails?account=&folder=`: every email of a folder goes, by the rules of a single
 * delete: to Trash keeping its uid, or for good when `permanent` is set, when the folder is
 * Trash, or when it is Drafts. On a connected inbox the remote folder is emptied first, in one
 * command, and the local copy follows only when the server has accepted it. Mail that comes in
 * while it runs stays.
 */
export async function emptyFolder(
  deps: MailboxDeps,
  caller: Caller,
  where: { account: string; folder: string },
  options: { permanent?: boolean } = {},
): Promise<EmptiedFolder> {
  const inbox = await requireInbox(deps, caller, where.account);
  const remote = remoteOf(deps, inbox);
  const folder = await requireFolder(deps, inbox, where.folder);
  refuseOutbox(folder, 'emptied');
  const forGood = !!options.permanent || isTrash(folder) || isDrafts(folder);
  const { store } = deps;
  const recorded = () =>
    recordInTransaction(deps, caller.audit, { account: inbox.address, target: folder.name });
  const removeAll = (messages: Listed[]) =>
    store.db.transaction(async () => {
      for (const message of messages) await store.messages.remove(message.id);
      await recorded();
    });
  const answer = (count: number, movedTo: string | null): EmptiedFolder => ({
    folder: folder.name,
    count,
    deleted: forGood,
    movedTo,
  });

  if (!remote) {
    return store.db.transaction(async () => {
      if (forGood) {
        const messages = await store.messages.allInFolder(folder.id);
        await removeAll(messages);
        return answer(messages.length, null);
      }
      const trash = await trashOf(deps, inbox);
      const moved = await store.messages.moveAll(folder.id, trash.id, nowIso());
      await recorded();
      return answer(moved, trash.name);
    });
  }

  return remote.exclusive(async () => {
    const messages = await store.messages.allInFolder(folder.id);
    const trash = forGood ? null : requireRemoteFolder(await trashOf(deps, inbox));
    // Nothing to change, so no transaction: the door writes the record.
    if (messages.length === 0) return answer(0, trash?.name ?? null);
    const remoteUids = messages.map(remoteUidOf);
    requireRemoteFolder(folder);
    if (!trash) {
      await remote.expungeMany(folder, remoteUids);
      await removeAll(messages);
      return answer(messages.length, null);
    }
    const moved = await remote.moveMany(folder, remoteUids, trash);
    await store.db.transaction(async () => {
      const at = nowIso();
      for (const message of messages) {
        await store.messages.moveTo(message.id, trash.id, at);
        await store.imapState.setRemoteUid(message.id, moved?.get(message.remote_uid!) ?? null);
      }
      await recorded();
    });
    return answer(messages.length, trash.name);
  });
}
