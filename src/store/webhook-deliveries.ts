import type { Db } from '../db/connection.js';
import { fillEventBody } from './event-bodies.js';
import { newId, nowIso } from './ids.js';
import type { Sealer } from './sealing.js';

/** A claimed delivery with what it takes to send it: the webhook's current URL and secret, the event body. */
export interface DeliveryJob {
  id: number;
  webhook_id: string;
  /** Counting this attempt: attempts are counted when claimed. */
  attempts: number;
  /** The claim this attempt is made under; its outcome is recorded only while it holds. */
  claim_id: string;
  url: string;
  secret: string;
  webhook_status: 'enabled' | 'disabled';
  /** The webhook's failure streak when the job was read (a success then ends it). */
  failing_since: string | null;
  event_id: string;
  event_type: string;
  payload: string;
}

export interface AttemptRecord {
  deliveryId: number;
  claimId: string;
  webhookId: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
  /** What was sent: the URL and the headers (signed with the secret, never holding it). */
  request: { url: string; headers: Record<string, string> };
  /** The start of the answer's body as text, and its size; null when no answer came. */
  response: { excerpt: string | null; bytes: number | null };
  /** The delivery afterwards: pending again at `nextAttemptAt`, succeeded or failed. */
  outcome: { status: 'succeeded' | 'failed' } | { status: 'pending'; nextAttemptAt: Date };
  /**
   * Whether the caller changes the webhook's row in the same transaction afterwards (its failure
   * streak, a disable): the webhook's row is then taken first, as a disable takes it.
   */
  changesWebhook: boolean;
}

export interface AttemptListRow {
  id: number;
  delivery_id: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  event_id: string;
  event_type: string;
  delivery_status: 'pending' | 'succeeded' | 'failed';
  delivery_attempts: number;
  next_attempt_at: string | null;
}

/** One attempt with what went out and what came back; `payload` is the body the event carries. */
export interface AttemptDetailRow extends AttemptListRow {
  request_url: string | null;
  request_headers: string | null;
  response_body: string | null;
  response_bytes: number | null;
  payload: string;
}

/** A delivery not attempted yet (just queued: a test event waits here for a second or two). */
export interface WaitingDeliveryRow {
  id: number;
  event_id: string;
  event_type: string;
  created_at: string;
}

/** The webhook delivery queue (one row per event and webhook) and the log of every attempt. */
export class WebhookDeliveryStore {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
  ) {}

  /** Due deliveries, oldest due first, leaving out webhooks that already have enough in flight. */
  async due(now: Date, skipWebhooks: string[], limit: number): Promise<{ id: number; webhook_id: string }[]> {
    let q = this.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['id', 'webhook_id'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', nowIso(now))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit);
    if (skipWebhooks.length > 0) q = q.where('webhook_id', 'not in', skipWebhooks);
    return await this.db.all(q);
  }

  /** When the next pending delivery falls due, if any. */
  async nextDueAt(): Promise<string | null> {
    const row = await this.db.first(
      this.db.kysely
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('status', '=', 'pending'),
    );
    return row?.at ?? null;
  }

  /**
   * Takes deliveries for sending, in one statement: under a new claim id, counting the attempt,
   * with the due time pushed to the end of a `leaseMs` lease on the database's clock, so no other
   * node or loop picks them meanwhile; if the process dies mid-send they fall due again when the
   * lease runs out. Returns the ids actually taken (another node may have been first, or be
   * changing one of them: it is left for a later pass).
   */
  async claim(ids: number[], leaseMs: number): Promise<number[]> {
    if (ids.length === 0) return [];
    const { clockPlusMs } = this.db.dialect;
    const listed = ids.map(() => '?').join(', ');
    // On PostgreSQL a row another transaction holds (a disable failing the webhook's deliveries,
    // another node's claim) is skipped, not waited for: waiting, this statement and a disable
    // updating the same rows in another order could each hold what the other wants.
    const free = this.db.dialect.rowLocks
      ? `id IN (SELECT id FROM webhook_deliveries WHERE id IN (${listed}) FOR UPDATE SKIP LOCKED)`
      : `id IN (${listed})`;
    const rows = await this.db.rawAllUnsynced<{ id: number }>(
      `UPDATE webhook_deliveries
          SET claim_id = ?, attempts = attempts + 1, next_attempt_at = ${clockPlusMs}
        WHERE ${free}
          AND status = 'pending' AND next_attempt_at <= ${clockPlusMs}
        RETURNING id`,
      newId('clm'),
      leaseMs,
      ...ids,
      0,
    );
    return rows.map((r) => r.id);
  }

  async jobs(ids: number[]): Promise<DeliveryJob[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .innerJoin('events as e', 'e.seq', 'd.event_seq')
        .select([
          'd.id',
          'd.webhook_id',
          'd.attempts',
          'd.claim_id',
          'w.url',
          'w.secret',
          'w.status as webhook_status',
          'w.failing_since',
          'e.id as event_id',
          'e.type as event_type',
          'e.payload',
          'e.body_of',
        ])
        .where('d.id', 'in', ids),
    );
    const jobs: DeliveryJob[] = [];
    for (const { body_of, claim_id, ...job } of rows) {
      const secret = this.sealer.open('webhook-secret', job.secret);
      jobs.push({
        ...job,
        claim_id: claim_id!,
        secret,
        payload: await fillEventBody(this.db, job.payload, body_of),
      });
    }
    return jobs;
  }

  /**
   * Logs an attempt and moves its delivery on. A delivery failed meanwhile (its webhook was
   * disabled) keeps that status. False, recording nothing, when the delivery is gone (its webhook
   * was deleted) or was taken under another claim after this one's lease ran out.
   */
  async recordAttempt(record: AttemptRecord): Promise<boolean> {
    return this.db.transaction(async () => {
      // The webhook's row before the delivery's, the order a disable takes them in
      // (WebhookStore.update): when the caller changes the webhook in this transaction, the other
      // order deadlocked with a user's disable on PostgreSQL. Only then: every success taking it
      // made the nodes' dispatchers of one webhook wait for each other's commits.
      if (record.changesWebhook && this.db.dialect.rowLocks)
        await this.db.rawFirst('SELECT id FROM webhooks WHERE id = ? FOR NO KEY UPDATE', record.webhookId);
      const now = nowIso(record.at);
      const { outcome } = record;
      const current = await this.db.first(
        this.db.kysely
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('id', '=', record.deliveryId)
          .where('claim_id', '=', record.claimId),
      );
      if (!current) return false;
      await this.db.run(
        this.db.kysely.insertInto('webhook_attempts').values({
          delivery_id: record.deliveryId,
          webhook_id: record.webhookId,
          status_code: record.statusCode,
          error: record.error,
          duration_ms: record.durationMs,
          attempted_at: now,
          request_url: record.request.url,
          request_headers: JSON.stringify(record.request.headers),
          response_body: record.response.excerpt,
          response_bytes: record.response.bytes,
        }),
      );
      await this.db.run(
        this.db.kysely
          .updateTable('webhook_deliveries')
          .set({
            last_status_code: record.statusCode,
            last_error: record.error,
            updated_at: now,
            ...(current.status === 'pending'
              ? {
                  status: outcome.status,
                  next_attempt_at: outcome.status === 'pending' ? nowIso(outcome.nextAttemptAt) : null,
                }
              : {}),
          })
          .where('id', '=', record.deliveryId)
          .where('claim_id', '=', record.claimId),
      );
      return true;
    });
  }

  /**
   * Fails a delivery taken under `claimId` without sending it (its webhook was switched off
   * meanwhile), giving back the attempt its claim counted.
   */
  async fail(id: number, claimId: string, error: string, at = new Date()): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          status: 'failed',
          attempts: eb('attempts', '-', 1),
          next_attempt_at: null,
          last_error: error,
          updated_at: nowIso(at),
        }))
        .where('id', '=', id)
        .where('claim_id', '=', claimId),
    );
  }

  /** A webhook's attempts, newest first, paged by attempt id. */
  async attempts(webhookId: string, limit: number, beforeId?: number): Promise<AttemptListRow[]> {
    let q = this.attemptsOf(webhookId).orderBy('a.id', 'desc').limit(limit);
    if (beforeId !== undefined) q = q.where('a.id', '<', beforeId);
    return await this.db.all(q);
  }

  /** One attempt of a webhook with its request and response, and the body its event carries. */
  async attempt(webhookId: string, attemptId: number): Promise<AttemptDetailRow | undefined> {
    const row = await this.db.first(
      this.attemptsOf(webhookId)
        .select([
          'a.request_url',
          'a.request_headers',
          'a.response_body',
          'a.response_bytes',
          'e.payload',
          'e.body_of',
        ])
        .where('a.id', '=', attemptId),
    );
    if (!row) return undefined;
    const { body_of, ...attempt } = row;
    return { ...attempt, payload: await fillEventBody(this.db, attempt.payload, body_of) };
  }

  /** Deliveries among a webhook's `newest` that wait for their first attempt, newest first. */
  async waiting(webhookId: string, newest: number): Promise<WaitingDeliveryRow[]> {
    const recent = this.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_seq', 'status', 'created_at'])
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .limit(newest)
      .as('d');
    return await this.db.all(
      this.db.kysely
        .selectFrom(recent)
        .innerJoin('events as e', 'e.seq', 'd.event_seq')
        .select(['d.id', 'e.id as event_id', 'e.type as event_type', 'd.created_at'])
        .where('d.status', '=', 'pending')
        // Not `attempts = 0`: an attempt is counted when it is claimed, before it is recorded.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(selectFrom('webhook_attempts as a').select('a.id').whereRef('a.delivery_id', '=', 'd.id')),
          ),
        )
        .orderBy('d.id', 'desc'),
    );
  }

  private attemptsOf(webhookId: string) {
    return this.db.kysely
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('events as e', 'e.seq', 'd.event_seq')
      .select([
        'a.id',
        'a.delivery_id',
        'a.status_code',
        'a.error',
        'a.duration_ms',
        'a.attempted_at',
        'e.id as event_id',
        'e.type as event_type',
        'd.status as delivery_status',
        'd.attempts as delivery_attempts',
        'd.next_attempt_at',
      ])
      .where('a.webhook_id', '=', webhookId);
  }
}
