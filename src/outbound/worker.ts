import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { DeliveryRow } from '../store/deliveries.js';
import type { Store } from '../store/index.js';
import { signWithDkim } from './dkim.js';
import type { ResolvedOutboundOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { Decision } from './retry.js';
import { decide } from './retry.js';
import type { Transport } from './transport.js';
import { createTransport } from './transport.js';
import { OnePassAtATime } from '../one-pass-at-a-time.js';

/** Recipients of one message that share a domain: one SMTP transaction. */
export interface DeliveryJob {
  messageId: number;
  inboxId: number;
  sender: string;
  domain: string;
  rows: DeliveryRow[];
}

export interface Settled {
  row: DeliveryRow;
  outcome: Outcome;
  decision: Decision;
}

/** Records what an attempt decided (rows, cache, bounces, events); the mailbox layer does it. */
export type Settle = (job: DeliveryJob, settled: Settled[], at: Date) => Promise<void>;

export interface WorkerDeps {
  store: Store;
  config: Config;
  bus: EventBus;
  log: Logger;
}

const MAX_PARALLEL = 8;
const STOP_WAIT_MS = 5_000;

/**
 * Drains the `deliveries` queue. Rows are the truth: the worker looks for due ones when woken
 * (a send committed, an attempt finished), at the next due time, or every pollMs at the latest,
 * and claims them (store: deliveries.claimDue) so that on several nodes each row is attempted by
 * one. A node that dies mid-attempt leaves its rows due again when their lease ends: at most one
 * more attempt, by whichever node looks first.
 */
export class OutboundWorker {
  readonly name = 'outbound';
  private readonly transport: Transport;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** The scan of the queue now: one at a time, or two could launch the same rows. */
  private readonly scans = new OnePassAtATime(() => this.scan());
  private stopped = true;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: WorkerDeps,
    private readonly options: ResolvedOutboundOptions,
    private readonly settle: Settle,
  ) {
    this.transport = createTransport(deps.config, options);
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.deps.bus.subscribe((rows) => {
      if (rows.some((r) => r.type === 'email.sent')) this.wake();
    });
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.scans.idle();
    const all = Promise.allSettled([...this.running]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    this.transport.close();
  }

  /** Looks at the queue as soon as possible. */
  wake(): void {
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), Math.max(0, delayMs));
    this.timer.unref();
  }

  private tick(): void {
    this.timer = null;
    this.scans.request();
  }

  private async scan(): Promise<void> {
    if (this.stopped || !this.deps.store.db.open) return;
    try {
      const free = MAX_PARALLEL - this.running.size;
      if (free > 0) {
        const rows = await this.deps.store.deliveries.claimDue(free, this.options.leaseMs);
        // Launched even when stopped meanwhile: the rows are claimed, and stop() waits for them.
        for (const job of await this.jobsOf(rows)) this.launch(job);
      }
      if (this.running.size >= MAX_PARALLEL) return this.schedule(this.options.pollMs);
      const next = await this.deps.store.deliveries.nextDueAt();
      const wait = next === null ? this.options.pollMs : Date.parse(next) - Date.now();
      this.schedule(Math.min(wait, this.options.pollMs));
    } catch (error) {
      this.deps.log.error({ err: error }, 'outbound queue scan failed');
      this.schedule(this.options.pollMs);
    }
  }

  private async jobsOf(rows: DeliveryRow[]): Promise<DeliveryJob[]> {
    const jobs = new Map<string, DeliveryJob>();
    for (const row of rows) {
      const domain = (row.recipient.split('@')[1] ?? '').toLowerCase();
      const key = `${row.message_id} ${domain}`;
      let job = jobs.get(key);
      if (!job) {
        const message = await this.deps.store.messages.get(row.message_id);
        if (!message) continue;
        job = {
          messageId: message.id,
          inboxId: message.inbox_id,
          sender: message.from_address,
          domain,
          rows: [],
        };
        jobs.set(key, job);
      }
      job.rows.push(row);
    }
    return [...jobs.values()];
  }

  private launch(job: DeliveryJob): void {
    const run = this.attempt(job)
      .catch((error: unknown) => {
        this.deps.log.error({ err: error, messageId: job.messageId }, 'outbound attempt failed');
      })
      .finally(() => {
        this.running.delete(run);
        this.wake();
      });
    this.running.add(run);
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    const { store, log } = this.deps;
    const raw = await store.messages.raw(job.messageId);
    if (!raw) return;
    const outgoing = this.transport.signs ? await this.signed(raw, job.sender) : raw;
    const recipients = job.rows.map((r) => r.recipient);
    const outcomes = await this.transport.send(job.domain, { from: job.sender, to: recipients }, outgoing);
    if (!store.db.open) return;
    const at = new Date();
    const settled = job.rows.map((row) => {
      const outcome = outcomes.find((o) => o.recipient.toLowerCase() === row.recipient.toLowerCase()) ?? {
        recipient: row.recipient,
        result: 'temporary' as const,
        response: 'no answer for this recipient',
        remoteMta: null,
      };
      return { row, outcome, decision: decide(outcome, row, at, this.options) };
    });
    for (const s of settled) {
      log.info(
        {
          messageId: job.messageId,
          recipient: s.row.recipient,
          status: s.decision.status,
          mta: s.outcome.remoteMta,
        },
        'outbound attempt',
      );
    }
    await this.settle(job, settled, at);
  }

  /** DKIM-signed with the key of the sender's domain when it is hosted here. */
  private async signed(raw: Buffer, sender: string): Promise<Buffer> {
    const domain = sender.split('@')[1] ?? '';
    try {
      const key = await this.deps.store.domains.signingKey(domain);
      return key ? await signWithDkim(raw, key) : raw;
    } catch (error) {
      this.deps.log.error({ err: error, domain }, 'DKIM signing failed; sending unsigned');
      return raw;
    }
  }
}
