import type { MailboxDeps } from '../deps.js';

/** Flags as stored: the session-only \Recent dropped, sorted so two sets compare as strings. */
export function normalFlags(flags: Iterable<string> | undefined): string[] {
  return [...(flags ?? [])].filter((f) => f.toLowerCase() !== '\\recent').sort();
}

/** Whether the stored flags (JSON) are already these remote ones (normalFlags'd). */
export const sameFlags = (stored: string, remote: string[]) =>
  JSON.stringify(normalFlags(JSON.parse(stored) as string[])) === JSON.stringify(remote);

/** Flags another client set on the server, taken onto the local copies in one transaction. */
export async function takeRemoteFlags(
  deps: MailboxDeps,
  folderId: number,
  changed: { uid: number; flags?: Set<string> }[],
): Promise<void> {
  const { store } = deps;
  const byUid = new Map((await store.imapState.links(folderId)).map((l) => [l.remote_uid, l]));
  await store.db.transaction(async () => {
    for (const message of changed) {
      const link = byUid.get(message.uid);
      const flags = normalFlags(message.flags);
      if (link && !sameFlags(link.flags, flags)) await store.messages.setFlags(link.id, flags);
    }
  });
}
