import type { FetchMessageObject } from 'imapflow';
import { dropExpunged, linkedCount, linkedMissingFrom } from '../mailbox/sync/expunges.js';
import type { SyncedFolder } from '../mailbox/sync/folder-progress.js';
import { takeRemoteFlags } from '../mailbox/sync/remote-flags.js';
import type { FolderSyncContext } from './folder-sync.js';

/** Flags changed by other clients: since the last MODSEQ with CONDSTORE, else every message's. */
export async function syncFlags(
  ctx: FolderSyncContext,
  folder: SyncedFolder,
  knownModseq: number | null,
  highestModseq: bigint | undefined,
): Promise<void> {
  const { client, deps } = ctx;
  if (!client.mailbox || client.mailbox.exists === 0) return;
  let changed: FetchMessageObject[];
  if (knownModseq !== null && highestModseq !== undefined) {
    if (highestModseq <= BigInt(knownModseq)) return;
    changed = await client.fetchAll(
      '1:*',
      { uid: true, flags: true },
      { uid: true, changedSince: knownModseq },
    );
  } else {
    changed = await client.fetchAll('1:*', { uid: true, flags: true }, { uid: true });
  }
  await takeRemoteFlags(deps, folder.id, changed);
}

/** Messages expunged by other clients: a UID absent from two answers in a row, never from one. */
export async function syncExpunges(
  ctx: FolderSyncContext,
  folder: SyncedFolder,
  existsAtSelect: number,
): Promise<void> {
  const { client, deps } = ctx;
  const exists = client.mailbox ? client.mailbox.exists : existsAtSelect;
  if ((await linkedCount(deps, folder.id)) === exists) return;
  const all = await client.search({ all: true }, { uid: true });
  if (all === false || all === undefined) return;
  if (all.length === 0 && exists > 0) return;
  const missing = await linkedMissingFrom(deps, folder.id, new Set(all));
  if (missing.length === 0) return;
  // A UID missing from one answer is not proof: ask again about exactly those.
  const again = await client.search({ uid: missing.map((l) => l.remote_uid).join(',') }, { uid: true });
  if (again === false || again === undefined) return;
  const still = new Set(again);
  await dropExpunged(
    deps,
    missing.filter((link) => !still.has(link.remote_uid)),
  );
}
