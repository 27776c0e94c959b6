import { nodeIdOf } from '../../config.js';
import type { MailboxDeps } from '../deps.js';
import type { SyncLease } from './new-mail.js';

/** The lease name of the IMAP sync of an external inbox: one node syncs it (contract 11). */
export const imapLeaseName = (inboxId: number) => `imap:${inboxId}`;

/** Takes the sync of an inbox for this node for `ttlMs`; null when another node holds it. */
export async function takeSyncLease(
  deps: MailboxDeps,
  inboxId: number,
  ttlMs: number,
): Promise<SyncLease | null> {
  const name = imapLeaseName(inboxId);
  const claimId = await deps.store.nodes.acquire(name, nodeIdOf(deps.config), ttlMs);
  return claimId === null ? null : { name, claimId };
}

/** Keeps the sync this node holds for `ttlMs` more; false when it was lost to another node. */
export function renewSyncLease(deps: MailboxDeps, lease: SyncLease, ttlMs: number): Promise<boolean> {
  return deps.store.nodes.renew(lease.name, lease.claimId, ttlMs);
}

/** Gives the sync back, for another node to take at once. */
export async function releaseSyncLease(deps: MailboxDeps, lease: SyncLease): Promise<void> {
  if (deps.store.db.open) await deps.store.nodes.release(lease.name, lease.claimId);
}

/**
 * Holds a connected inbox's mailbox against the other nodes until the answered function is
 * called: one node's remote write and the syncing node's fetch-and-file of a folder take turns,
 * so the sync never fetches a moved copy before its move's link is stored. Within a node the
 * mailbox's Mutex (src/imap) orders its callers first; this is taken inside it.
 */
export function holdMailbox(deps: MailboxDeps, inboxId: number): Promise<() => Promise<void>> {
  return deps.store.imapState.holdMailbox(inboxId, () =>
    deps.log.debug({ inbox: inboxId }, 'another node holds this mailbox; waiting for it'),
  );
}
