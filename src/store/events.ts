import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { Dialect } from '../db/dialect.js';
import type { EventsTable } from '../db/schema.js';
import type { EventEmailBody } from './event-bodies.js';
import { fillEventBody, withoutEventBody } from './event-bodies.js';
import { newId, nowIso } from './ids.js';

export type EventRow = Selectable<EventsTable> & {
  /** Webhook deliveries queued for this event when it was appended (absent when unknown). */
  webhookDeliveries?: number;
  /** The one delivery queued for `NewEvent.webhookId`. */
  deliveryId?: number;
};

export interface NewEvent {
  type: string;
  userId: number;
  inboxId: number | null;
  /** The `data` member of the event body. */
  data: unknown;
  /**
   * The stored message whose text and html `data.email` carries: the stored payload leaves them
   * out and they are read back from the message when the event is sent.
   */
  bodyOf?: number;
  /** Queue one delivery to this webhook alone, whatever its status and events (webhook.test). */
  webhookId?: string;
  /** Mail filed into Spam: only webhooks with include_spam get it. */
  spam?: boolean;
}

/**
 * One pending delivery per enabled webhook of the user that wants this kind for this inbox (and,
 * for mail filed into Spam, includes spam), for each of `count` events given as (seq, at, user_id,
 * type, inbox_id, spam) rows. Answers the event_seq of each delivery queued.
 */
const fanOutSql = (dialect: Dialect, count: number) =>
  `WITH e(seq, at, user_id, type, inbox_id, spam) AS (VALUES ${Array.from(
    { length: count },
    () => '(CAST(? AS BIGINT), ?, CAST(? AS BIGINT), ?, ?, CAST(? AS INTEGER))',
  ).join(', ')})
  INSERT INTO webhook_deliveries (webhook_id, event_seq, status, next_attempt_at, created_at, updated_at)
  SELECT w.id, e.seq, 'pending', e.at, e.at, e.at FROM e JOIN webhooks w ON w.user_id = e.user_id
  WHERE w.status = 'enabled'
    AND EXISTS (SELECT 1 FROM ${dialect.jsonElements('w.events', 'k')} WHERE k.value = e.type)
    AND (w.accounts IS NULL OR e.inbox_id IS NULL
      OR EXISTS (SELECT 1 FROM ${dialect.jsonElements('w.accounts', 'a')} WHERE a.value = e.inbox_id))
    AND (e.spam = 0 OR w.include_spam = 1)
  RETURNING event_seq`;

const EVENT_COLUMNS = ['id', 'type', 'user_id', 'inbox_id', 'payload', 'created_at', 'body_of'] as const;

/** An event waiting to be written: its row (seq filled in when written) and what to queue for it. */
interface Pending {
  row: EventRow;
  stored: string;
  webhookId?: string;
  spam: boolean;
}

const pendingDelivery = (webhookId: string, row: EventRow) => ({
  webhook_id: webhookId,
  event_seq: row.seq,
  status: 'pending' as const,
  next_attempt_at: row.created_at,
  created_at: row.created_at,
  updated_at: row.created_at,
});

/** The NOTIFY channel of committed events (PostgreSQL). */
const EVENTS_CHANNEL = 'mailroom_events';

export class EventStore {
  constructor(private readonly db: Db) {}

  /** Calls `onAppended` when another node (or this one) commits events; answers how to stop. */
  onAppended(onAppended: () => void): Promise<() => Promise<void>> {
    return this.db.listen(EVENTS_CHANNEL, onAppended);
  }

  /**
   * Appends an event and one pending delivery for each enabled webhook of the user that wants it.
   * Call inside the transaction of the change that causes the event.
   *
   * On PostgreSQL the rows are written at the end of that transaction, just before it commits,
   * with the other events it appends (Db.writeAtCommit): the lock that keeps `seq` in commit
   * order is then the last lock the transaction takes, so it can never wait for a row lock (a uid) while holding it, and it is
   * held for the shortest time. The row answered is complete once the transaction has committed:
   * read its `seq`, `webhookDeliveries` and `deliveryId` after that.
   */
  async append(event: NewEvent, at = new Date()): Promise<EventRow> {
    const id = newId('evt');
    const created_at = nowIso(at);
    const body = { id, type: event.type, created_at, data: event.data };
    const payload = JSON.stringify(body);
    const bodyOf = event.bodyOf ?? null;
    const row: EventRow = {
      seq: 0,
      id,
      type: event.type,
      user_id: event.userId,
      inbox_id: event.inboxId,
      payload,
      created_at,
      body_of: bodyOf,
    };
    const stored =
      bodyOf === null
        ? payload
        : JSON.stringify(withoutEventBody(body as { data: { email: EventEmailBody } }));
    const pending: Pending = { row, stored, webhookId: event.webhookId, spam: event.spam ?? false };
    if (!this.db.writeAtCommit(this.write, pending)) await this.write([pending]);
    return row;
  }

  /**
   * Writes events and queues their webhook deliveries: one insert for all the events, one for
   * all their deliveries. `seq`, `webhookDeliveries` and `deliveryId` of each row are set.
   */
  private readonly write = (events: Pending[]): Promise<void> =>
    this.db.transaction(async () => {
      const values = events.map(() => `(${EVENT_COLUMNS.map(() => '?').join(', ')})`).join(', ');
      const written = await this.db.rawAll<{ id: string; seq: number }>(
        `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${values} RETURNING id, seq`,
        ...events.flatMap(({ row, stored }) =>
          EVENT_COLUMNS.map((column) => (column === 'payload' ? stored : row[column])),
        ),
      );
      // Other nodes' event tails read the table at once instead of at their next interval.
      await this.db.notify(EVENTS_CHANNEL);
      const seqs = new Map(written.map((w) => [w.id, w.seq]));
      for (const { row } of events) row.seq = seqs.get(row.id)!;
      const fanned = events.filter((e) => e.webhookId === undefined);
      const queued = new Map<number, number>();
      if (fanned.length > 0) {
        const rows = await this.db.rawAll<{ event_seq: number }>(
          fanOutSql(this.db.dialect, fanned.length),
          ...fanned.flatMap(({ row: r, spam }) => [
            r.seq,
            r.created_at,
            r.user_id,
            r.type,
            r.inbox_id,
            spam ? 1 : 0,
          ]),
        );
        for (const { event_seq } of rows) queued.set(event_seq, (queued.get(event_seq) ?? 0) + 1);
      }
      for (const { row, webhookId } of events) {
        row.webhookDeliveries = queued.get(row.seq) ?? 0;
        if (webhookId === undefined) continue;
        const delivery = pendingDelivery(webhookId, row);
        row.deliveryId = (await this.db.insert('webhook_deliveries', delivery)).lastInsertRowid;
        row.webhookDeliveries = 1;
      }
    });

  /** Events after `afterSeq` for these inboxes, oldest first. */
  async since(inboxIds: number[], afterSeq: number, limit: number): Promise<EventRow[]> {
    if (inboxIds.length === 0) return [];
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('inbox_id', 'in', inboxIds)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit),
    );
    return Promise.all(rows.map((row) => this.filled(row)));
  }

  /**
   * Events of a user's inboxes after `afterSeq`, oldest first: all of them, or those of
   * `inboxIds` (one inbox's, or those a key reaches). Events tied to no inbox (webhook.test) are
   * left out.
   */
  async forStream(
    filter: { userId: number; inboxIds?: readonly number[] },
    afterSeq: number,
    limit: number,
  ): Promise<EventRow[]> {
    let q = this.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('seq', '>', afterSeq)
      .where('user_id', '=', filter.userId)
      .where('inbox_id', 'is not', null)
      .orderBy('seq')
      .limit(limit);
    if (filter.inboxIds !== undefined) q = q.where('inbox_id', 'in', [...filter.inboxIds, -1]);
    return Promise.all((await this.db.all(q)).map((row) => this.filled(row)));
  }

  /**
   * Every event after `afterSeq`, oldest first, as notices: the payload is left as stored (a body
   * kept by reference is not read back), since a notice only says which inbox had what.
   */
  async after(afterSeq: number, limit: number): Promise<EventRow[]> {
    return this.db.all(
      this.db.kysely.selectFrom('events').selectAll().where('seq', '>', afterSeq).orderBy('seq').limit(limit),
    );
  }

  /** The seq of the newest event (0 when there is none): a live stream starts after it. */
  async lastSeq(): Promise<number> {
    const row = await this.db.first(
      this.db.kysely.selectFrom('events').select((eb) => eb.fn.max('seq').as('seq')),
    );
    return row?.seq ?? 0;
  }

  async find(id: string): Promise<EventRow | undefined> {
    const row = await this.db.first(this.db.kysely.selectFrom('events').selectAll().where('id', '=', id));
    return row && (await this.filled(row));
  }

  /** The row with the event body as sent: text and html read back from the message. */
  private async filled(row: EventRow): Promise<EventRow> {
    if (row.body_of === null) return row;
    return { ...row, payload: await fillEventBody(this.db, row.payload, row.body_of) };
  }
}
