import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import type { WebhooksTable } from '../db/schema.js';
import { newId, nowIso } from './ids.js';
import type { Sealer } from './sealing.js';

/** A webhook as the rest of the server sees it: the signing secret stays in the store (sealed). */
export type WebhookRow = Omit<Selectable<WebhooksTable>, 'secret'>;
export type DisabledReason = 'user' | 'gone' | 'failing';

export interface NewWebhook {
  userId: number;
  url: string;
  events: string[];
  /** Inbox ids the webhook is limited to; null for all of the user's inboxes. */
  accounts: number[] | null;
  /** Also email.received for mail filed into Spam. */
  includeSpam: boolean;
  description: string | null;
  secret: string;
}

export interface WebhookPatch {
  url?: string;
  events?: string[];
  accounts?: number[] | null;
  includeSpam?: boolean;
  description?: string | null;
  status?: 'enabled' | 'disabled';
}

const COLUMNS = [
  'id',
  'user_id',
  'url',
  'events',
  'accounts',
  'description',
  'status',
  'failing_since',
  'created_at',
  'updated_at',
  'disabled_reason',
  'include_spam',
] as const;

/** Webhook registrations. The delivery queue and its attempts live in webhook-deliveries.ts. */
export class WebhookStore {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
  ) {}

  async create(input: NewWebhook, at = new Date()): Promise<WebhookRow> {
    const now = nowIso(at);
    const row: WebhookRow = {
      id: newId('wh'),
      user_id: input.userId,
      url: input.url,
      events: JSON.stringify(input.events),
      accounts: input.accounts === null ? null : JSON.stringify(input.accounts),
      include_spam: input.includeSpam ? 1 : 0,
      description: input.description,
      status: 'enabled',
      failing_since: null,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    const secret = this.sealer.seal('webhook-secret', input.secret);
    await this.db.run(this.db.kysely.insertInto('webhooks').values({ ...row, secret }));
    return row;
  }

  /** A webhook of this user; another user's id is as absent as an unknown one. */
  async get(userId: number, id: string): Promise<WebhookRow | undefined> {
    return await this.db.first(
      this.db.kysely
        .selectFrom('webhooks')
        .select(COLUMNS)
        .where('id', '=', id)
        .where('user_id', '=', userId),
    );
  }

  /** Newest first, paged by rowid (`before` is the last rowid of the previous page). */
  async list(userId: number, limit: number, before?: number): Promise<(WebhookRow & { position: number })[]> {
    let q = this.db.kysely
      .selectFrom('webhooks')
      .select(COLUMNS)
      .select(sql<number>`rowid`.as('position'))
      .where('user_id', '=', userId)
      .orderBy(sql`rowid`, 'desc')
      .limit(limit);
    if (before !== undefined) q = q.where(sql<number>`rowid`, '<', before);
    return await this.db.all(q);
  }

  /**
   * Applies a change. Disabling fails the webhook's pending deliveries in the same transaction;
   * enabling clears its failure streak.
   */
  async update(
    userId: number,
    id: string,
    patch: WebhookPatch,
    at = new Date(),
  ): Promise<WebhookRow | undefined> {
    return this.db.transaction(async () => {
      const current = await this.get(userId, id);
      if (!current) return undefined;
      const now = nowIso(at);
      const values: Partial<WebhookRow> = { updated_at: now };
      if (patch.url !== undefined) values.url = patch.url;
      if (patch.events !== undefined) values.events = JSON.stringify(patch.events);
      if (patch.accounts !== undefined)
        values.accounts = patch.accounts === null ? null : JSON.stringify(patch.accounts);
      if (patch.includeSpam !== undefined) values.include_spam = patch.includeSpam ? 1 : 0;
      if (patch.description !== undefined) values.description = patch.description;
      await this.db.run(this.db.kysely.updateTable('webhooks').set(values).where('id', '=', id));
      if (patch.status === 'disabled' && current.status === 'enabled') await this.disable(id, 'user', at);
      if (patch.status === 'enabled' && current.status === 'disabled') await this.enable(id, at);
      return this.get(userId, id);
    });
  }

  async setSecret(
    userId: number,
    id: string,
    secret: string,
    at = new Date(),
  ): Promise<WebhookRow | undefined> {
    const { changes } = await this.db.run(
      this.db.kysely
        .updateTable('webhooks')
        .set({ secret: this.sealer.seal('webhook-secret', secret), updated_at: nowIso(at) })
        .where('id', '=', id)
        .where('user_id', '=', userId),
    );
    return changes > 0 ? this.get(userId, id) : undefined;
  }

  /** Deletes the webhook; its deliveries and attempts go with it (ON DELETE CASCADE). */
  async remove(userId: number, id: string): Promise<boolean> {
    return (
      (
        await this.db.run(
          this.db.kysely.deleteFrom('webhooks').where('id', '=', id).where('user_id', '=', userId),
        )
      ).changes > 0
    );
  }

  /** Switches a webhook off and fails what was still waiting for it. */
  async disable(id: string, reason: DisabledReason, at = new Date()): Promise<void> {
    const now = nowIso(at);
    await this.db.transaction(async () => {
      await this.db.run(
        this.db.kysely
          .updateTable('webhooks')
          .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
          .where('id', '=', id)
          .where('status', '=', 'enabled'),
      );
      await this.db.run(
        this.db.kysely
          .updateTable('webhook_deliveries')
          .set({ status: 'failed', next_attempt_at: null, last_error: 'webhook disabled', updated_at: now })
          .where('webhook_id', '=', id)
          .where('status', '=', 'pending'),
      );
    });
  }

  private async enable(id: string, at: Date): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('webhooks')
        .set({ status: 'enabled', disabled_reason: null, failing_since: null, updated_at: nowIso(at) })
        .where('id', '=', id),
    );
  }

  /** A delivery succeeded: the endpoint is healthy again. */
  async markHealthy(id: string): Promise<void> {
    await this.db.run(
      this.db.kysely
        .updateTable('webhooks')
        .set({ failing_since: null })
        .where('id', '=', id)
        .where('failing_since', 'is not', null),
    );
  }

  /** A delivery failed: starts the failure streak if none is running; returns when it started. */
  async markFailing(id: string, at = new Date()): Promise<string | undefined> {
    const row = (await this.db.rawFirst(
      `UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ?
         RETURNING failing_since`,
      nowIso(at),
      id,
    )) as { failing_since: string } | undefined;
    return row?.failing_since;
  }
}
