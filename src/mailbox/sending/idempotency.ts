import { sha256Hex } from '../../store/ids.js';
import type { MailboxDeps } from '../deps.js';
import { Conflict, ValidationFailed } from '../errors.js';

/** An `Idempotency-Key` is remembered this long (contract 3). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** A request that carries an Idempotency-Key: who, which key, and a hash of what was asked. */
export interface IdempotencyGuard {
  userId: number;
  key: string;
  hash: string;
}

export type IdempotencyCheck = { kind: 'replay'; response: unknown } | { kind: 'conflict' } | null;

/**
 * The guard of a request, or null without a key. The hash covers the operation and its whole
 * input (path, query and body), so the same key reused for something else is a conflict.
 */
export function idempotencyGuard(
  userId: number,
  key: string | undefined,
  operation: string,
  input: unknown,
): IdempotencyGuard | null {
  if (key === undefined) return null;
  if (!KEY_RE.test(key)) {
    throw ValidationFailed.field('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
  }
  return { userId, key, hash: sha256Hex(`${operation}\n${canonicalJson(input)}`) };
}

/** What an earlier request with this key decided. Call again inside the transaction of the work. */
export async function checkIdempotency(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
): Promise<IdempotencyCheck> {
  if (!guard) return null;
  const since = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  const row = await deps.store.idempotency.find(guard.userId, guard.key, since);
  if (!row) return null;
  if (row.request_hash !== guard.hash) return { kind: 'conflict' };
  return { kind: 'replay', response: JSON.parse(row.response) as unknown };
}

/** The fast path before any work: the stored response, a 409, or null to go ahead. */
export async function replayIfSeen<T>(deps: MailboxDeps, guard: IdempotencyGuard | null): Promise<T | null> {
  const check = await checkIdempotency(deps, guard);
  if (!check) return null;
  if (check.kind === 'conflict') throw idempotencyConflict();
  return check.response as T;
}

/**
 * Runs a keyed request, or replays the response stored for its key instead. A request that
 * fails asks once more: a twin with the same key may have committed between this one's first
 * look and its work (the draft it sends is then gone), and the twin's response is the answer.
 * On PostgreSQL each read is a round trip, so that window is wide enough to be hit.
 */
export async function withIdempotency<T>(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
  run: () => Promise<T>,
): Promise<T> {
  const seen = await replayIfSeen<T>(deps, guard);
  if (seen) return seen;
  try {
    return await run();
  } catch (error) {
    const check = guard ? await checkIdempotency(deps, guard) : null;
    if (check?.kind === 'replay') return check.response as T;
    throw error;
  }
}

export function idempotencyConflict(): Conflict {
  return new Conflict('this Idempotency-Key was already used with a different request');
}

let lastPrune = 0;

/** Records the response of the work; call inside the transaction that did it. */
export async function rememberResponse(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
  response: unknown,
): Promise<void> {
  if (!guard) return;
  const now = Date.now();
  if (now - lastPrune > PRUNE_EVERY_MS) {
    lastPrune = now;
    await deps.store.idempotency.prune(new Date(now - IDEMPOTENCY_TTL_MS).toISOString());
  }
  await deps.store.idempotency.save({
    user_id: guard.userId,
    key: guard.key,
    request_hash: guard.hash,
    status_code: 200,
    response: JSON.stringify(response),
    created_at: new Date(now).toISOString(),
  });
}

/** JSON with object keys sorted, so the same request hashes the same whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
