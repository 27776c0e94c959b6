import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { HeldSendsTable, HeldState } from '../db/schema.js';
import { newId, nowIso } from './ids.js';

export type HeldSendRow = Selectable<HeldSendsTable>;

/** Still in Outbox: waiting for a decision or for its time. */
export const OPEN_STATES: readonly HeldState[] = ['pending', 'scheduled'];

/**
 * Sends kept in Outbox (contract 15). Every change of state is a conditional update from the
 * states it may leave, made in the transaction that moves the message, so two deciders (two
 * requests, a request and the worker, two nodes) cannot both act on one send.
 */
export class HeldSendStore {
  constructor(private readonly db: Db) {}

  async insert(
    row: Omit<Insertable<HeldSendsTable>, 'id' | 'created_at' | 'updated_at'>,
  ): Promise<HeldSendRow> {
    const at = nowIso();
    const id = newId(row.approval ? 'apr' : 'sch');
    await this.db.run(
      this.db.kysely.insertInto('held_sends').values({ ...row, id, created_at: at, updated_at: at }),
    );
    return (await this.get(id))!;
  }

  async get(id: string): Promise<HeldSendRow | undefined> {
    return await this.db.first(this.db.kysely.selectFrom('held_sends').selectAll().where('id', '=', id));
  }

  /** The open send of an inbox whose message in Outbox has this uid. */
  async openByUid(inboxId: number, uid: number): Promise<HeldSendRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('held_sends')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('uid', '=', uid)
        .where('state', 'in', OPEN_STATES),
    );
  }

  /** Sends waiting for a decision in these inboxes, oldest first. */
  async pending(inboxIds: readonly number[], limit: number): Promise<HeldSendRow[]> {
    if (inboxIds.length === 0) return [];
    return await this.db.all(
      this.db.kysely
        .selectFrom('held_sends')
        .selectAll()
        .where('inbox_id', 'in', [...inboxIds])
        .where('state', '=', 'pending')
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit),
    );
  }

  async countPending(inboxIds: readonly number[]): Promise<number> {
    if (inboxIds.length === 0) return 0;
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('held_sends')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('inbox_id', 'in', [...inboxIds])
        .where('state', '=', 'pending'),
    );
    return Number(row?.n ?? 0);
  }

  /** Moves a send from one of `from` to a new state; false when it was no longer in one of them. */
  async change(id: string, from: readonly HeldState[], patch: Updateable<HeldSendsTable>): Promise<boolean> {
    const result = await this.db.run(
      this.db.kysely
        .updateTable('held_sends')
        .set({ ...patch, claim_id: null, updated_at: nowIso() })
        .where('id', '=', id)
        .where('state', 'in', [...from]),
    );
    return result.changes > 0;
  }

  /**
   * Claims up to `limit` open sends whose time has come (to expire or to go), moving their due
   * time to the lease's end by the database's clock, as DeliveryStore.claimDue does: another
   * node passes them over, and a node that dies holding them leaves them due again.
   */
  async claimDue(limit: number, leaseMs: number): Promise<HeldSendRow[]> {
    const { clockPlusMs, skipLocked } = this.db.dialect;
    return await this.db.rawAllUnsynced<HeldSendRow>(
      `UPDATE held_sends SET claim_id = ?, due_at = ${clockPlusMs}
        WHERE state IN ('pending', 'scheduled') AND due_at <= ${clockPlusMs}
          AND id IN (
            SELECT id FROM held_sends
             WHERE state IN ('pending', 'scheduled') AND due_at <= ${clockPlusMs}
             ORDER BY due_at, id LIMIT ? ${skipLocked})
        RETURNING *`,
      newId('clm'),
      leaseMs,
      0,
      0,
      limit,
    );
  }

  /** The earliest due time among open sends, or null. */
  async nextDueAt(): Promise<string | null> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('held_sends')
        .select((eb) => eb.fn.min('due_at').as('at'))
        .where('state', 'in', OPEN_STATES),
    );
    return row?.at ?? null;
  }
}
