import type { z } from '@hono/zod-openapi';
import type { Me } from '../../contract/keys.js';
import type { ApiKeyRow } from '../../store/api-keys.js';
import type { WindowCount } from '../../store/rate-windows.js';
import type { KeyCaller } from '../caller.js';
import { permissionsOf } from '../caller.js';
import type { MailboxDeps } from '../deps.js';
import { MailroomError, mailroomErrorOf } from '../errors.js';

/** The active key `key` is, as the caller it makes, or undefined for an unknown or revoked one. */
export async function authenticateKey(deps: MailboxDeps, key: string): Promise<KeyCaller | undefined> {
  const row = await deps.store.apiKeys.authenticate(key);
  return row ? callerOfKey(row) : undefined;
}

/**
 * authenticateKey, with the request counted in the key's API rate window by the same statement
 * (PostgreSQL: see ApiRate.authenticate).
 */
export async function authenticateKeyCounting(
  deps: MailboxDeps,
  key: string,
  windowMs: number,
): Promise<{ caller: KeyCaller; count: WindowCount } | undefined> {
  const found = await deps.store.apiKeys.authenticateCounting(key, windowMs);
  return found && { caller: callerOfKey(found.row), count: found.count };
}

/** The caller a key makes: its user, and how far it reaches. */
export function callerOfKey(row: ApiKeyRow): KeyCaller {
  return {
    userId: row.user_id,
    keyId: row.id,
    inboxes: row.inboxes,
    permissions: new Set(permissionsOf(row)),
  };
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

/** `GET /me`: whose key this is and how far it reaches (contract 14). */
export async function describeKey(deps: MailboxDeps, caller: KeyCaller): Promise<z.infer<typeof Me>> {
  const [user, key] = await Promise.all([
    deps.store.users.find(caller.userId),
    deps.store.apiKeys.active(caller.keyId),
  ]);
  if (!user || !key) throw new MailroomError('unauthorized', 'this API key was revoked');
  return {
    user: { id: user.id, name: user.name },
    key: { id: key.id, name: key.name, inboxes: key.inboxes, permissions: permissionsOf(key) },
  };
}
