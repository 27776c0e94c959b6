import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { IdempotencyKeysTable } from '../db/schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** Idempotency-Key records: the first response to a key, per user (contract 3). */
export class IdempotencyStore {
  constructor(private readonly db: Db) {}

  /** The record of a key, when it was made at or after `since`. */
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

  /** Records a key; an expired record of the same key is replaced. Call in the transaction of the work. */
  async save(row: IdempotencyRow): Promise<void> {
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

  /** Forgets records made before `before`; returns how many. */
  async prune(before: string): Promise<number> {
    return (await this.db.run(this.db.kysely.deleteFrom('idempotency_keys').where('created_at', '<', before)))
      .changes;
  }
}
