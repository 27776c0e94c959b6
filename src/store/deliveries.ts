import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { DeliveriesTable, DeliveryStatus } from '../db/schema.js';
import { nowIso } from './ids.js';

export type DeliveryRow = Selectable<DeliveriesTable>;

export interface NewDelivery {
  messageId: number;
  recipient: string;
  status: DeliveryStatus;
  /** Due time for `queued` rows; null for rows already settled. */
  nextAttemptAt: string | null;
  lastError?: string | null;
}

export interface DeliveryChange {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
  lastError: string | null;
  remoteMta: string | null;
  /** Count this change as an attempt (false for a status set without trying, e.g. captured). */
  attempted: boolean;
}

/** The outbound queue: one row per recipient of a sent message (contract 8). */
export class DeliveryStore {
  constructor(private readonly db: Db) {}

  insert(rows: NewDelivery[], at = new Date()): void {
    const now = nowIso(at);
    for (const row of rows) {
      this.db.run(
        this.db.kysely.insertInto('deliveries').values({
          message_id: row.messageId,
          recipient: row.recipient,
          status: row.status,
          next_attempt_at: row.nextAttemptAt,
          last_error: row.lastError ?? null,
          created_at: now,
          updated_at: now,
        }),
      );
    }
  }

  forMessage(messageId: number): DeliveryRow[] {
    return this.db.all(
      this.db.kysely.selectFrom('deliveries').selectAll().where('message_id', '=', messageId).orderBy('id'),
    );
  }

  /** Rows waiting for an attempt that is due, oldest first, leaving out those already in hand. */
  due(now: string, excludeIds: number[], limit: number): DeliveryRow[] {
    return this.db
      .raw(
        `SELECT * FROM deliveries
         WHERE status IN ('queued', 'deferred') AND next_attempt_at <= ?
           AND id NOT IN (SELECT value FROM json_each(?))
         ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(now, JSON.stringify(excludeIds), limit) as DeliveryRow[];
  }

  /** The earliest due time among waiting rows not in hand, or null when nothing waits. */
  nextDueAt(excludeIds: number[]): string | null {
    const row = this.db
      .raw(
        `SELECT min(next_attempt_at) AS at FROM deliveries
         WHERE status IN ('queued', 'deferred') AND id NOT IN (SELECT value FROM json_each(?))`,
      )
      .get(JSON.stringify(excludeIds)) as { at: string | null };
    return row.at;
  }

  /** Applies an outcome to a row still waiting; returns false when it was settled or removed meanwhile. */
  update(id: number, change: DeliveryChange, at = new Date()): boolean {
    const now = nowIso(at);
    const result = this.db
      .raw(
        `UPDATE deliveries SET status = ?, next_attempt_at = ?, last_error = ?, remote_mta = ?,
           attempts = attempts + ?, last_attempt_at = CASE WHEN ? THEN ? ELSE last_attempt_at END,
           updated_at = ?
         WHERE id = ? AND status IN ('queued', 'deferred')`,
      )
      .run(
        change.status,
        change.nextAttemptAt,
        change.lastError,
        change.remoteMta,
        change.attempted ? 1 : 0,
        change.attempted ? 1 : 0,
        now,
        now,
        id,
      );
    return result.changes > 0;
  }

  /** Rewrites the `messages.delivery` cache of the sent message from its delivery rows. */
  syncMessageCache(messageId: number): void {
    this.db
      .raw(
        `UPDATE messages SET delivery = (
           SELECT json_group_array(json_object('recipient', recipient, 'status', status))
           FROM (SELECT recipient, status FROM deliveries WHERE message_id = ? ORDER BY id)
         ) WHERE id = ?`,
      )
      .run(messageId, messageId);
  }

  /** How many rows wait in each waiting status (for metrics and tests). */
  depth(): { queued: number; deferred: number } {
    const rows = this.db
      .raw(
        `SELECT status, count(*) AS n FROM deliveries WHERE status IN ('queued', 'deferred') GROUP BY status`,
      )
      .all() as { status: 'queued' | 'deferred'; n: number }[];
    const out = { queued: 0, deferred: 0 };
    for (const row of rows) out[row.status] = row.n;
    return out;
  }
}
