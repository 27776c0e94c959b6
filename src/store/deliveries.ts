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

  async insert(rows: NewDelivery[], at = new Date()): Promise<void> {
    const now = nowIso(at);
    for (const row of rows) {
      await this.db.run(
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

  async forMessage(messageId: number): Promise<DeliveryRow[]> {
    return await this.db.all(
      this.db.kysely.selectFrom('deliveries').selectAll().where('message_id', '=', messageId).orderBy('id'),
    );
  }

  /** Rows waiting for an attempt that is due, oldest first, leaving out those already in hand. */
  /** The recipients a message of this inbox with this Message-ID was sent to (through the queue). */
  async recipientsOfSent(inboxId: number, messageId: string): Promise<string[]> {
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('deliveries')
        .innerJoin('messages', 'messages.id', 'deliveries.message_id')
        .select('deliveries.recipient')
        .where('messages.inbox_id', '=', inboxId)
        .where('messages.message_id', '=', messageId),
    );
    return rows.map((row) => row.recipient.toLowerCase());
  }

  async due(now: string, excludeIds: number[], limit: number): Promise<DeliveryRow[]> {
    let q = this.db.kysely
      .selectFrom('deliveries')
      .selectAll()
      .where('status', 'in', ['queued', 'deferred'])
      .where('next_attempt_at', '<=', now);
    if (excludeIds.length > 0) q = q.where('id', 'not in', excludeIds);
    return (await this.db.all(q.orderBy('next_attempt_at').orderBy('id').limit(limit))) as DeliveryRow[];
  }

  /** The earliest due time among waiting rows not in hand, or null when nothing waits. */
  async nextDueAt(excludeIds: number[]): Promise<string | null> {
    let q = this.db.kysely
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', 'in', ['queued', 'deferred']);
    if (excludeIds.length > 0) q = q.where('id', 'not in', excludeIds);
    const row = await this.db.first(q);
    return row?.at ?? null;
  }

  /** Applies an outcome to a row still waiting; returns false when it was settled or removed meanwhile. */
  async update(id: number, change: DeliveryChange, at = new Date()): Promise<boolean> {
    const now = nowIso(at);
    const result = await this.db.rawRun(
      `UPDATE deliveries SET status = ?, next_attempt_at = ?, last_error = ?, remote_mta = ?,
           attempts = attempts + ?, last_attempt_at = CASE WHEN ? = 1 THEN ? ELSE last_attempt_at END,
           updated_at = ?
         WHERE id = ? AND status IN ('queued', 'deferred')`,
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
  async syncMessageCache(messageId: number): Promise<void> {
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('deliveries')
        .select(['recipient', 'status'])
        .where('message_id', '=', messageId)
        .orderBy('id'),
    );
    await this.db.run(
      this.db.kysely
        .updateTable('messages')
        .set({ delivery: JSON.stringify(rows) })
        .where('id', '=', messageId),
    );
  }

  /** How many rows wait in each waiting status (for metrics and tests). */
  async depth(): Promise<{ queued: number; deferred: number }> {
    const rows = (await this.db.rawAll(
      `SELECT status, count(*) AS n FROM deliveries WHERE status IN ('queued', 'deferred') GROUP BY status`,
    )) as { status: 'queued' | 'deferred'; n: number }[];
    const out = { queued: 0, deferred: 0 };
    for (const row of rows) out[row.status] = row.n;
    return out;
  }
}
