import type { FolderRow } from '../../store/folders.js';
import type { FolderSyncState } from '../../store/imap-state.js';
import type { MailboxDeps } from '../deps.js';

/** A local folder the sync keeps level with a remote one. */
export type SyncedFolder = FolderRow;

/** How far a folder was synced: UIDVALIDITY, the highest MODSEQ and the next UID seen. */
export type FolderProgress = FolderSyncState;

/** The folder as stored now, with its remote path and its progress (undefined once dropped). */
export function syncedFolder(deps: MailboxDeps, folderId: number): Promise<FolderRow | undefined> {
  return deps.store.folders.get(folderId);
}

/** After a UIDVALIDITY change every remote UID of the folder is meaningless: all are unlinked. */
export function startResync(deps: MailboxDeps, folderId: number): Promise<void> {
  return deps.store.imapState.unlinkFolder(folderId);
}

/**
 * Records how far the folder is synced. After a resync, the local copies no remote message
 * was found to be are dropped first.
 */
export async function finishFolderSync(
  deps: MailboxDeps,
  folderId: number,
  resync: boolean,
  progress: FolderProgress,
): Promise<void> {
  const { store } = deps;
  if (resync) for (const id of await store.imapState.unlinkedIds(folderId)) await store.messages.remove(id);
  await store.imapState.setFolderSync(folderId, progress);
}
