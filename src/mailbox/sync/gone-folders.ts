import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';

/**
 * Drops the local copy of a remote folder that no longer exists (deleted, or renamed: the new
 * name is synced as a new folder). A standard folder (INBOX, Sent...) stays, unmapped and
 * without the mail that was on the server; any other goes with all its mail. No events fire.
 */
export async function dropFolderCopy(deps: MailboxDeps, inbox: InboxRow, folder: FolderRow): Promise<void> {
  const { store } = deps;
  await store.db.transaction(async () => {
    const ids = folder.special_use
      ? (await store.imapState.links(folder.id)).map((l) => l.id)
      : await store.imapState.allIds(folder.id);
    for (const id of ids) await store.messages.remove(id);
    if (folder.special_use) {
      await store.imapState.setFolderRemote(folder.id, null);
      await store.imapState.setFolderSync(folder.id, {
        uid_validity: null,
        highest_modseq: null,
        uid_next_seen: null,
      });
    } else {
      await store.folders.remove(folder.id);
    }
  });
  deps.log.info(
    { account: inbox.address, folder: folder.remote_path, messages: 'dropped' },
    'remote folder gone; local copy dropped',
  );
}

/** After a LIST: every mapped local folder whose remote path was not among those kept is gone. */
export async function dropGoneFolders(deps: MailboxDeps, inbox: InboxRow, kept: FolderRow[]): Promise<void> {
  const keep = new Set(kept.map((f) => f.id));
  for (const folder of await deps.store.folders.listOf(inbox.id)) {
    if (folder.remote_path !== null && !keep.has(folder.id)) await dropFolderCopy(deps, inbox, folder);
  }
}
