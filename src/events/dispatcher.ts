import type { Logger } from 'pino';
import type { Worker } from '../worker.js';
import type { Store } from '../store/index.js';
import type { AttemptRecord, DeliveryJob } from '../store/webhook-deliveries.js';
import type { Reach } from '../net/reach.js';
import type { EventBus } from './bus.js';
import type { PostResult } from './http-post.js';
import { postWebhook } from './http-post.js';
import { withExtractedReply } from './payload.js';
import { DEFAULT_DISABLE_AFTER_FAILING_MS, DEFAULT_RETRY_DELAYS_MS, retryDelay } from './retry-schedule.js';
import { webhookHeaders } from './signing.js';
import { OnePassAtATime } from '../one-pass-at-a-time.js';

export interface DispatcherOptions {
  store: Store;
  bus: EventBus;
  log: Logger;
  /** Where deliveries may connect (webhookReach: MAILROOM_WEBHOOK_ALLOW_PRIVATE and the bind address). */
  reach: Reach;
  /** Waits between attempts; the delivery fails after the last. Default: contract 7. */
  retryDelaysMs?: readonly number[];
  /** A 2xx must arrive within this. Default 15 s. */
  timeoutMs?: number;
  /** An endpoint failing this long without a success is disabled. Default 5 days. */
  disableAfterFailingMs?: number;
  /** Posts in flight at once, in all and per webhook. */
  concurrency?: number;
  perWebhook?: number;
  /** Look for due deliveries at least this often (wakes sooner on new events). */
  pollMs?: number;
}

/** The event type of `POST /webhooks/{id}/test`: one attempt, and it never changes the webhook. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * How long a claimed delivery stays claimed past the post's own timeout, should the process die:
 * the post is aborted at its timeout, so all a live node still does after it is write the
 * outcome. A late answer changes nothing (outcomes are kept only under their claim), and a
 * receiver tells a second post of one event by its `webhook-id`.
 */
const LEASE_SLACK_MS = 15_000;

/**
 * Drains `webhook_deliveries`: claims due rows, posts each event signed with the webhook's
 * current secret, logs every attempt, and reschedules failures per the retry schedule. The rows
 * are the queue, so a restart resumes where the last run stopped.
 */
export class WebhookDispatcher implements Worker {
  readonly name = 'webhook-dispatcher';
  private readonly delays: readonly number[];
  private readonly timeoutMs: number;
  private readonly disableAfterMs: number;
  private readonly concurrency: number;
  private readonly perWebhook: number;
  private readonly pollMs: number;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly inFlightPerWebhook = new Map<string, number>();
  private running = false;
  private pumpScheduled = false;
  /** The pump reading the queue now: one at a time, as when the store answered synchronously. */
  private readonly pumps = new OnePassAtATime(
    () => this.pumpOnce(),
    () => this.running,
  );
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly opts: DispatcherOptions) {
    this.delays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.disableAfterMs = opts.disableAfterFailingMs ?? DEFAULT_DISABLE_AFTER_FAILING_MS;
    this.concurrency = opts.concurrency ?? 16;
    this.perWebhook = opts.perWebhook ?? 8;
    this.pollMs = opts.pollMs ?? 1000;
  }

  start(): void {
    this.running = true;
    // Wake when this process committed an event that queued a delivery. Events another node or
    // process committed (the event tail's rows, whose count is unknown here) are left to that
    // process's dispatcher, which wakes for them, and to this one's poll should it not: every
    // node chasing every other node's deliveries cost each message a queue read and a lost
    // claim race per node.
    this.unsubscribe = this.opts.bus.subscribe((rows) => {
      if (rows.some((row) => (row.webhookDeliveries ?? 0) > 0)) this.kick();
    });
    this.kick();
  }

  /** Stops taking work and waits (bounded) for posts in flight; an unfinished one is retried after restart. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.pumps.idle();
    const settled = Promise.allSettled([...this.inFlight.values()]);
    await Promise.race([settled, new Promise((r) => setTimeout(r, this.timeoutMs + 1000).unref())]);
  }

  private kick(): void {
    if (!this.running || this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** A kick while a pump reads the queue runs one more pump after it, never a second at once. */
  private pump(): void {
    if (this.running) this.pumps.request();
  }

  private async pumpOnce(): Promise<void> {
    try {
      await this.claimAndSend();
      await this.scheduleNextLook();
    } catch (err) {
      this.opts.log.error({ err }, 'webhook dispatcher could not read its queue');
      this.wakeIn(this.pollMs);
    }
  }

  private async claimAndSend(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const { webhookDeliveries } = this.opts.store;
    const now = new Date();
    const counts = new Map(this.inFlightPerWebhook);
    const full = [...counts].filter(([, n]) => n >= this.perWebhook).map(([id]) => id);
    const picked: number[] = [];
    for (const candidate of await webhookDeliveries.due(now, full, free * 4)) {
      if (picked.length >= free) break;
      const n = counts.get(candidate.webhook_id) ?? 0;
      if (n >= this.perWebhook) continue;
      counts.set(candidate.webhook_id, n + 1);
      picked.push(candidate.id);
    }
    const claimed = await webhookDeliveries.claim(picked, this.timeoutMs + LEASE_SLACK_MS);
    for (const job of await webhookDeliveries.jobs(claimed)) this.send(job);
  }

  /** Wakes for the next due delivery, or after the poll interval, whichever is sooner. */
  private async scheduleNextLook(): Promise<void> {
    const next = await this.opts.store.webhookDeliveries.nextDueAt();
    const dueIn = next === null ? Infinity : Date.parse(next) - Date.now();
    this.wakeIn(dueIn > 0 ? Math.min(dueIn, this.pollMs) : this.pollMs);
  }

  private wakeIn(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
  }

  private send(job: DeliveryJob): void {
    const hook = job.webhook_id;
    this.inFlightPerWebhook.set(hook, (this.inFlightPerWebhook.get(hook) ?? 0) + 1);
    const done = this.deliver(job)
      .catch((err: unknown) =>
        this.opts.log.error({ err, delivery: job.id }, 'webhook delivery failed to record'),
      )
      .finally(() => {
        this.inFlight.delete(job.id);
        const left = (this.inFlightPerWebhook.get(hook) ?? 1) - 1;
        if (left > 0) this.inFlightPerWebhook.set(hook, left);
        else this.inFlightPerWebhook.delete(hook);
        this.kick();
      });
    this.inFlight.set(job.id, done);
  }

  private async deliver(job: DeliveryJob): Promise<void> {
    const { store } = this.opts;
    if (job.webhook_status !== 'enabled' && job.event_type !== TEST_EVENT_TYPE) {
      await store.webhookDeliveries.fail(job.id, job.claim_id, 'webhook disabled');
      return;
    }
    const payload = withExtractedReply(job.payload);
    const headers = webhookHeaders(job.secret, job.event_id, payload);
    const result = await postWebhook(job.url, headers, payload, {
      timeoutMs: this.timeoutMs,
      reach: this.opts.reach,
    });
    // Stopped and the database closed while the post was out: the lease brings it back after restart.
    if (!store.db.open) return;
    await store.groupCommit.submit(() => this.record(job, { url: job.url, headers }, result, new Date()));
    this.opts.log.debug(
      { webhook: job.webhook_id, event: job.event_id, status: result.status, ms: result.durationMs },
      result.ok ? 'webhook delivered' : 'webhook attempt failed',
    );
  }

  /** Runs inside the commit that logs the attempt: the delivery's next step and the webhook's health. */
  private async record(
    job: DeliveryJob,
    request: AttemptRecord['request'],
    result: PostResult,
    at: Date,
  ): Promise<void> {
    const { webhooks, webhookDeliveries } = this.opts.store;
    const isTest = job.event_type === TEST_EVENT_TYPE;
    const delay = result.ok || result.gone || isTest ? null : retryDelay(job.attempts, this.delays);
    const recorded = await webhookDeliveries.recordAttempt({
      deliveryId: job.id,
      claimId: job.claim_id,
      webhookId: job.webhook_id,
      statusCode: result.status,
      error: result.error,
      durationMs: result.durationMs,
      at,
      request,
      response: { excerpt: result.responseExcerpt, bytes: result.responseBytes },
      outcome: result.ok
        ? { status: 'succeeded' }
        : delay === null
          ? { status: 'failed' }
          : { status: 'pending', nextAttemptAt: new Date(at.getTime() + delay) },
      // What follows writes the webhook's row: a failure's streak or a disable, a success's end
      // of a streak (markHealthy writes nothing while there is none).
      changesWebhook: !isTest && (!result.ok || job.failing_since !== null),
    });
    if (!recorded || isTest) return;
    if (result.ok) {
      await webhooks.markHealthy(job.webhook_id);
    } else if (result.gone) {
      await webhooks.disable(job.webhook_id, 'gone', at);
      this.opts.log.warn({ webhook: job.webhook_id }, 'webhook answered 410 Gone: disabled');
    } else {
      const since = await webhooks.markFailing(job.webhook_id, at);
      if (since !== undefined && at.getTime() - Date.parse(since) >= this.disableAfterMs) {
        await webhooks.disable(job.webhook_id, 'failing', at);
        this.opts.log.warn({ webhook: job.webhook_id, since }, 'webhook failing too long: disabled');
      }
    }
  }
}
