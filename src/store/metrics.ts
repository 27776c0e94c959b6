import type { Db } from '../db/connection.js';
import type { DeliveryStatus, WebhookDeliveriesTable } from '../db/schema.js';
import { ScreeningCountStore } from './screening-counts.js';
import type { ScreeningOutcome } from './screening-counts.js';

export const COUNTED_EVENT_TYPES = ['email.received', 'email.sent', 'email.bounced'] as const;
export type CountedEventType = (typeof COUNTED_EVENT_TYPES)[number];

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  'queued',
  'deferred',
  'delivered',
  'failed',
  'captured',
];

export type WebhookDeliveryStatus = WebhookDeliveriesTable['status'];
export const WEBHOOK_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** What the database knows that /metrics reports, read at scrape time. */
export interface StoredCounts {
  /** Rows of the event log by type (events are kept, so these only grow until a user is removed). */
  events: Record<CountedEventType, number>;
  /** Messages stored in every folder of every inbox. */
  messages: number;
  /** Outbound recipient deliveries by status; queued and deferred are the outbound queue. */
  deliveries: Record<DeliveryStatus, number>;
  /** Webhook deliveries (one per event and webhook) by status; pending is the webhook queue. */
  webhookDeliveries: Record<WebhookDeliveryStatus, number>;
  /** Every webhook POST ever made: a 2xx answer succeeded, anything else failed. */
  webhookAttempts: { succeeded: number; failed: number };
  /** Inbound mail screening by outcome (rspamd, ClamAV, DMARC, the built-in review). */
  screening: Record<ScreeningOutcome, number>;
}

/**
 * Counts for /metrics. Each query reads an index only (events by migrations/006_metrics.sql),
 * so a scrape stays at a few milliseconds per 100k rows and never touches message bodies.
 */
export class MetricsStore {
  private readonly screening: ScreeningCountStore;

  constructor(private readonly db: Db) {
    this.screening = new ScreeningCountStore(db);
  }

  async counts(): Promise<StoredCounts> {
    return {
      events: await this.eventCounts(),
      messages: await this.messageCount(),
      deliveries: await this.byStatus('deliveries', DELIVERY_STATUSES),
      webhookDeliveries: await this.byStatus('webhook_deliveries', WEBHOOK_DELIVERY_STATUSES),
      webhookAttempts: await this.attemptCounts(),
      screening: await this.screening.counts(),
    };
  }

  private async eventCounts(): Promise<Record<CountedEventType, number>> {
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom('events')
        .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
        .where('type', 'in', [...COUNTED_EVENT_TYPES])
        .groupBy('type'),
    );
    const counts = zeroes(COUNTED_EVENT_TYPES);
    for (const row of rows) counts[row.type as CountedEventType] = Number(row.n);
    return counts;
  }

  private async messageCount(): Promise<number> {
    const row = await this.db.first(
      this.db.kysely.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')),
    );
    return Number(row?.n ?? 0);
  }

  private async byStatus<S extends string>(
    table: 'deliveries' | 'webhook_deliveries',
    statuses: readonly S[],
  ): Promise<Record<S, number>> {
    const rows = await this.db.all(
      this.db.kysely
        .selectFrom(table)
        .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
        .groupBy('status'),
    );
    const counts = zeroes(statuses);
    for (const row of rows) {
      if ((statuses as readonly string[]).includes(row.status)) counts[row.status as S] = Number(row.n);
    }
    return counts;
  }

  private async attemptCounts(): Promise<{ succeeded: number; failed: number }> {
    const row = (await this.db.rawFirst(`SELECT count(*) AS total,
                count(*) FILTER (WHERE status_code BETWEEN 200 AND 299) AS succeeded
         FROM webhook_attempts`)) as { total: number; succeeded: number };
    return { succeeded: row.succeeded, failed: row.total - row.succeeded };
  }
}

function zeroes<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}
