import type { MailboxDeps } from '../deps.js';
import { sessionStillOpen } from '../operations/sign-in.js';

/** Who reads a feed or waits for mail: an API key's user, or a person signed in to the dashboard. */
export type FeedCaller = { userId: number; keyId: string } | { userId: number; sessionId: string };

/** A caller holding a live stream or a wait open, on one inbox (`inboxId`) or on all of its user's. */
export type AccessHolder = FeedCaller & { inboxId?: number };

/** What has ended a holder's access: its key, its dashboard session, or its one inbox. */
export type LostAccess = 'key' | 'session' | 'inbox';

/**
 * What has taken a holder's access away since it was let in, or null while it still has it: the
 * key revoked (or gone with its user), the dashboard session closed, the one inbox no longer the
 * user's. Read from the database each time, so a revocation made by another process (the CLI) or
 * another node on the same PostgreSQL counts too. The one check behind every long-lived request:
 * `GET /events`, the dashboard's live list, `GET /emails?wait=` and MCP `wait_for_email`.
 */
export async function lostAccess(deps: MailboxDeps, holder: AccessHolder): Promise<LostAccess | null> {
  const { store } = deps;
  if ('keyId' in holder && !(await store.apiKeys.isActive(holder.keyId))) return 'key';
  if ('sessionId' in holder && !(await sessionStillOpen(deps, holder.sessionId))) return 'session';
  if (holder.inboxId === undefined) return null;
  return (await store.inboxes.get(holder.inboxId))?.user_id === holder.userId ? null : 'inbox';
}
