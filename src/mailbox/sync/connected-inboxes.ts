import type { InboxRow } from '../../store/inboxes.js';
import { nowIso } from '../../store/ids.js';
import { openJson, sealJson } from '../../store/sealing.js';
import type { MailboxDeps } from '../deps.js';
import type { RemoteConfig } from '../remote.js';

export type SyncState = 'connecting' | 'syncing' | 'synced' | 'error';

/** An inbox connected to an external mailbox. */
export type ConnectedInbox = InboxRow;

/** The inboxes connected to an external mailbox; null once the database is closed (stopping). */
export async function connectedInboxes(deps: MailboxDeps): Promise<InboxRow[] | null> {
  if (!deps.store.db.open) return null;
  return deps.store.imapState.connectedInboxes();
}

/** The inbox as stored now (undefined once removed). */
export function syncedInbox(deps: MailboxDeps, inboxId: number): Promise<InboxRow | undefined> {
  return deps.store.inboxes.get(inboxId);
}

/** Shows how the inbox's sync stands (`synced` also marks when); nothing once the database is closed. */
export async function recordSyncState(
  deps: MailboxDeps,
  inboxId: number,
  state: SyncState,
  error: string | null = null,
): Promise<void> {
  if (!deps.store.db.open) return;
  await deps.store.inboxes.setSyncState(inboxId, {
    sync_state: state,
    ...(state === 'error' || state === 'synced' ? { sync_error: error } : {}),
    ...(state === 'synced' ? { last_sync_at: nowIso() } : {}),
  });
}

/** The inbox's connection settings, unsealed; throws a plain Error that says why it cannot. */
export function remoteConfigOf(deps: MailboxDeps, inbox: InboxRow): RemoteConfig {
  if (!inbox.remote_config || !deps.config.secret) throw new Error('no connection settings stored');
  try {
    return openJson<RemoteConfig>(deps.config.secret, inbox.remote_config);
  } catch {
    throw new Error('the stored connection settings cannot be read with this MAILROOM_SECRET');
  }
}

/** Stores the inbox's connection settings again, sealed (an OAuth2 refresh token rotated). */
export async function saveRemoteConfig(
  deps: MailboxDeps,
  inboxId: number,
  config: RemoteConfig,
): Promise<void> {
  const secret = deps.config.secret;
  if (secret) await deps.store.inboxes.setRemoteConfig(inboxId, sealJson(secret, config));
}

/**
 * Runs an OAuth2 refresh of the inbox's grant with the refresh token as stored now, one node at a
 * time: on PostgreSQL the inbox's row is held until `refresh` has stored what it rotated, so a
 * node whose token in memory another node has since rotated (and the provider revoked) refreshes
 * with the new one instead of losing the grant. SQLite has one node: no row is held (a write
 * transaction there would stop every other writer for the length of an HTTP call).
 */
export async function refreshGrantAlone<T>(
  deps: MailboxDeps,
  inboxId: number,
  refresh: (storedRefreshToken: string | undefined) => Promise<T>,
): Promise<T> {
  const stored = async () => {
    const inbox = await deps.store.inboxes.get(inboxId);
    return inbox?.remote_config ? remoteConfigOf(deps, inbox).oauth2?.refreshToken : undefined;
  };
  if (!deps.store.db.dialect.rowLocks) return refresh(await stored());
  return deps.store.db.transaction(async () => {
    await deps.store.inboxes.holdRow(inboxId);
    return refresh(await stored());
  });
}
