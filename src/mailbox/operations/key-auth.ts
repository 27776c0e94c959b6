import type { ApiKeyRow } from '../../store/api-keys.js';
import type { KeyCaller } from '../caller.js';
import { PERMISSIONS } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { mailroomErrorOf } from '../errors.js';

/** The active key `key` is, as the caller it makes, or undefined for an unknown or revoked one. */
export async function authenticateKey(deps: MailboxDeps, key: string): Promise<KeyCaller | undefined> {
  const row = await deps.store.apiKeys.authenticate(key);
  return row ? callerOfKey(row) : undefined;
}

/** The caller a key makes: its user, and how far it reaches. */
export function callerOfKey(row: ApiKeyRow): KeyCaller {
  return { userId: row.user_id, keyId: row.id, inboxes: null, permissions: new Set(PERMISSIONS) };
}

/**
 * Records that a key was used now (its last_used_at). A database that cannot be written still
 * serves reads: last_used_at waits for the next use, and a write the request itself makes
 * answers 503 unavailable.
 */
export async function noteKeyUsed(deps: MailboxDeps, keyId: string): Promise<void> {
  try {
    await deps.store.apiKeys.touch(keyId);
  } catch (error) {
    if (mailroomErrorOf(error)?.code !== 'unavailable') throw error;
  }
}
