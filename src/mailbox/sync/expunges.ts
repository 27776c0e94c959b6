import type { MailboxDeps } from '../deps.js';

/** A local copy tied to a remote message. */
export interface LinkedCopy {
  id: number;
  remote_uid: number;
}

/** How many local copies of the folder are tied to a remote UID. */
export function linkedCount(deps: MailboxDeps, folderId: number): Promise<number> {
  return deps.store.imapState.countLinked(folderId);
}

/** The local copies whose remote UID is not among `present` (the server's answer to SEARCH ALL). */
export async function linkedMissingFrom(
  deps: MailboxDeps,
  folderId: number,
  present: Set<number>,
): Promise<LinkedCopy[]> {
  return (await deps.store.imapState.links(folderId)).filter((l) => !present.has(l.remote_uid));
}

/** Drops the local copies of messages expunged on the server, in one transaction; no events fire. */
export async function dropExpunged(deps: MailboxDeps, gone: LinkedCopy[]): Promise<void> {
  const { store } = deps;
  await store.db.transaction(async () => {
    for (const link of gone) await store.messages.remove(link.id);
  });
}
