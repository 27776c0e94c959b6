import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { DeliveriesTable, DeliveryStatus } from '../db/schema.js';
import { newId, nowIso } from './ids.js';

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

  /**
   * Takes due rows for an attempt, in one statement: every due row of the messages of the
   * oldest `limit` due rows (so a message's recipients at one domain go in one transaction),
   * counting the attempt now and moving the row's due time to the end of a `leaseMs` lease on
   * the database's clock, under a new claim id. Rows another node is taking are passed over; a
   * node that dies holding rows leaves them due again when the lease ends.
   */
  async claimDue(limit: number, leaseMs: number): Promise<DeliveryRow[]> {
    const { clockPlusMs, skipLocked } = this.db.dialect;
    return await this.db.rawAllUnsynced<DeliveryRow>(
      `UPDATE deliveries
          SET claim_id = ?, attempts = attempts + 1, next_attempt_at = ${clockPlusMs},
              last_attempt_at = ${clockPlusMs}, updated_at = ${clockPlusMs}
        WHERE status IN ('queued', 'deferred') AND next_attempt_at <= ${clockPlusMs}
          AND message_id IN (
            SELECT message_id FROM deliveries
             WHERE status IN ('queued', 'deferred') AND next_attempt_at <= ${clockPlusMs}
             ORDER BY next_attempt_at, id LIMIT ? ${skipLocked})
        RETURNING *`,
      newId('clm'),
      leaseMs,
      0,
      0,
      0,
      0,
      limit,
    );
  }

  /** The earliest due time among waiting rows (a claimed row's is its lease's end), or null. */
  async nextDueAt(): Promise<string | null> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('status', 'in', ['queued', 'deferred']),
    );
    return row?.at ?? null;
  }

  /**
   * Applies the outcome of the attempt made under `claimId` to a row still waiting; returns false
   * when it was settled, removed, or taken again under another claim meanwhile (its lease ran out).
   */
  async settle(id: number, claimId: string, change: DeliveryChange, at = new Date()): Promise<boolean> {
    const result = await this.db.run(
      this.db.kysely
        .updateTable('deliveries')
        .set({
          status: change.status,
          next_attempt_at: change.nextAttemptAt,
          last_error: change.lastError,
          remote_mta: change.remoteMta,
          updated_at: nowIso(at),
        })
        .where('id', '=', id)
        .where('claim_id', '=', claimId)
        .where('status', 'in', ['queued', 'deferred']),
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
