import { setTimeout as sleep } from 'node:timers/promises';
import { newId, sha256Hex } from '../../store/ids.js';
import type { IdempotencyRow } from '../../store/idempotency.js';
import { RESERVED } from '../../store/idempotency.js';
import type { MailboxDeps } from '../deps.js';
import { Conflict, ValidationFailed } from '../errors.js';

/** An `Idempotency-Key` is remembered this long (contract 3). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/**
 * A request holding a key renews its reservation every third of this; a reservation not renewed
 * for this long (its node died) frees the key for a retry.
 */
export const RESERVATION_LEASE_MS = 30_000;
/** A twin polls for the first request's answer, from this pause doubling up to the last. */
const FIRST_PAUSE_MS = 20;
const LAST_PAUSE_MS = 500;
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

/**
 * What an earlier request with this key decided. A reservation is no decision: inside the work
 * it is this request's own (withIdempotency took it).
 */
export async function checkIdempotency(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
): Promise<IdempotencyCheck> {
  if (!guard) return null;
  return decided(await deps.store.idempotency.find(guard.userId, guard.key, expiredBefore()), guard);
}

function decided(row: IdempotencyRow | undefined, guard: IdempotencyGuard): IdempotencyCheck {
  if (!row) return null;
  if (row.request_hash !== guard.hash) return { kind: 'conflict' };
  if (row.status_code === RESERVED) return null;
  return { kind: 'replay', response: JSON.parse(row.response) as unknown };
}

const expiredBefore = () => new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();

/** The fast path before any work: the stored response, a 409, or null to go ahead. */
export async function replayIfSeen<T>(deps: MailboxDeps, guard: IdempotencyGuard | null): Promise<T | null> {
  const check = await checkIdempotency(deps, guard);
  if (!check) return null;
  if (check.kind === 'conflict') throw idempotencyConflict();
  return check.response as T;
}

/**
 * Runs a keyed request, or answers what the first request with its key answered. The key is
 * reserved before the work, in a statement only one request wins on any node; a twin waits for
 * the first's answer (or goes ahead itself when the first failed, as the first left no answer).
 * The reservation is renewed while the work runs, so one whose node died frees the key within
 * RESERVATION_LEASE_MS.
 */
export async function withIdempotency<T>(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
  run: () => Promise<T>,
): Promise<T> {
  if (!guard) return run();
  const { idempotency } = deps.store;
  const reserved = await reserve(deps, guard);
  if (reserved.kind === 'replay') return reserved.response as T;
  const { claimId } = reserved;
  const renew = () =>
    idempotency
      .renew(guard.userId, guard.key, claimId, RESERVATION_LEASE_MS)
      .catch((err: unknown) => deps.log.warn({ err }, 'an Idempotency-Key reservation could not be renewed'));
  const renewing = setInterval(() => void renew(), RESERVATION_LEASE_MS / 3);
  renewing.unref();
  try {
    return await run();
  } finally {
    clearInterval(renewing);
    await idempotency.release(guard.userId, guard.key, claimId);
  }
}

/** Takes the key for this request, or waits for the request that holds it and answers its answer. */
async function reserve(
  deps: MailboxDeps,
  guard: IdempotencyGuard,
): Promise<{ kind: 'reserved'; claimId: string } | { kind: 'replay'; response: unknown }> {
  const claimId = newId('idk');
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const now = new Date().toISOString();
    const since = expiredBefore();
    const won = await deps.store.idempotency.reserve({
      userId: guard.userId,
      key: guard.key,
      requestHash: guard.hash,
      claimId,
      since,
      now,
      leaseMs: RESERVATION_LEASE_MS,
    });
    if (won) return { kind: 'reserved', claimId };
    const row = await deps.store.idempotency.find(guard.userId, guard.key, since);
    const check = decided(row, guard);
    if (check?.kind === 'conflict') throw idempotencyConflict();
    if (check?.kind === 'replay') return check;
    // Held by a request at work (or freed since): ask again.
    await sleep(pause);
    pause = Math.min(pause * 2, LAST_PAUSE_MS);
  }
}

export function idempotencyConflict(): Conflict {
  return new Conflict('this Idempotency-Key was already used with a different request');
}

/** Records the response of the work; call inside the transaction that did it. */
export async function rememberResponse(
  deps: MailboxDeps,
  guard: IdempotencyGuard | null,
  response: unknown,
): Promise<void> {
  if (!guard) return;
  await deps.store.idempotency.save({
    user_id: guard.userId,
    key: guard.key,
    request_hash: guard.hash,
    status_code: 200,
    response: JSON.stringify(response),
    created_at: new Date().toISOString(),
  });
}

/** Forgets answers older than IDEMPOTENCY_TTL_MS (the prune job, one node at a time). */
export async function pruneIdempotencyKeys(deps: MailboxDeps): Promise<number> {
  return deps.store.idempotency.prune(expiredBefore());
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
