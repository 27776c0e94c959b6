import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { IdempotencyKeysTable } from '../db/schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** The status_code of a key reserved by a request still at work (no response yet). */
export const RESERVED = 0;

/** Who reserves a key, with what request, under which claim, for how long. */
export interface Reservation {
  userId: number;
  key: string;
  requestHash: string;
  claimId: string;
  /** A recorded answer made before this is expired: the key is free again. */
  since: string;
  now: string;
  leaseMs: number;
}

/**
 * Idempotency-Key records, per user (contract 3): first a reservation by the request that does
 * the work, then its response. Leases are read off the database's clock, so nodes agree.
 */
export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  /** The record of a key, reserved or answered, when it was made at or after `since`. */
  async find(userId: number, key: string, since: string): Promise<IdempotencyRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where('created_at', '>=', since),
    );
  }

  /**
   * Reserves a key in one statement that only one request wins, on any node: when nobody has
   * it, its answer has expired, or the request that reserved it stopped renewing (it died).
   */
  async reserve(r: Reservation): Promise<boolean> {
    const { clockPlusMs } = this.db.dialect;
    const row = await this.db.rawFirst<{ claim_id: string }>(
      `INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response, created_at, claim_id, held_until)
         VALUES (?, ?, ?, ${RESERVED}, '', ?, ?, ${clockPlusMs})
       ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash,
         status_code = ${RESERVED}, response = '', created_at = excluded.created_at,
         claim_id = excluded.claim_id, held_until = excluded.held_until
        WHERE (idempotency_keys.status_code = ${RESERVED} AND idempotency_keys.held_until < ${clockPlusMs})
           OR (idempotency_keys.status_code <> ${RESERVED} AND idempotency_keys.created_at < ?)
       RETURNING claim_id`,
      r.userId,
      r.key,
      r.requestHash,
      r.now,
      r.claimId,
      r.leaseMs,
      0,
      r.since,
    );
    return row?.claim_id === r.claimId;
  }

  /** Extends a reservation still held under `claimId` and not yet answered. */
  async renew(userId: number, key: string, claimId: string, leaseMs: number): Promise<void> {
    await this.db.rawRun(
      `UPDATE idempotency_keys SET held_until = ${this.db.dialect.clockPlusMs}
        WHERE user_id = ? AND key = ? AND claim_id = ? AND status_code = ${RESERVED}`,
      leaseMs,
      userId,
      key,
      claimId,
    );
  }

  /** Frees a reservation its request left without an answer (it failed): a retry may do the work. */
  async release(userId: number, key: string, claimId: string): Promise<void> {
    await this.db.run(
      this.db.kysely
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where('claim_id', '=', claimId)
        .where('status_code', '=', RESERVED),
    );
  }

  /** Records the answer to a key, replacing its reservation. Call in the transaction of the work. */
  async save(row: Omit<IdempotencyRow, 'claim_id' | 'held_until'>): Promise<void> {
    await this.db.rawRun(
      `INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response, created_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, key) DO UPDATE SET request_hash = excluded.request_hash,
           status_code = excluded.status_code, response = excluded.response, created_at = excluded.created_at`,
      row.user_id,
      row.key,
      row.request_hash,
      row.status_code,
      row.response,
      row.created_at,
    );
  }

  /** Forgets answers made before `before`, and reservations left by requests that died; returns how many. */
  async prune(before: string): Promise<number> {
    return (await this.db.run(this.db.kysely.deleteFrom('idempotency_keys').where('created_at', '<', before)))
      .changes;
  }
}
