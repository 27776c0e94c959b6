import type { ApiKeyRow } from '../../store/api-keys.js';
import type { MailboxDeps } from '../deps.js';
import { mailroomErrorOf } from '../errors.js';

/** The active key `key` is, or undefined for an unknown or revoked one. */
export async function authenticateKey(deps: MailboxDeps, key: string): Promise<ApiKeyRow | undefined> {
  return deps.store.apiKeys.authenticate(key);
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
