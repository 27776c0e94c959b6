import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { Config } from '../../config.js';
import type { ParsedEmail } from '../../mail/types.js';
import type { EventRow } from '../../store/events.js';
import type { FolderRow } from '../../store/folders.js';
import type { InboxRow } from '../../store/inboxes.js';
import type { MailboxDeps } from '../deps.js';
import type { SpamCheckView } from '../reading/email-view.js';
import type { Filed, InboundMessage, Ingest } from './receive.js';
import { startThread } from './thread-start.js';
import { transferList } from './transfer-list.js';

export interface IngestJob {
  id: number;
  raw: Uint8Array;
  /** Parsed on a parse thread (small messages inline), attachment bytes left out: the thread needs only their metadata. */
  parsed: ParsedEmail;
  /** As read at RCPT TO, with the folder each files into: no lookups inside the group commit. */
  inboxes: InboxRow[];
  folders: FolderRow[];
  authResults: unknown;
  spam: boolean;
  spamCheck: SpamCheckView | undefined;
  nullSender: boolean;
  receivedAt: string;
}

export type IngestReply =
  | { id: number; filed: { inboxId: number; uid: number }[]; events: EventRow[] }
  | { id: number; error: string };

/**
 * The ingest thread's young generation: 6 MB (2 MB semi-spaces) instead of V8's 48 MB. Filing
 * makes short-lived garbage at a steady pace, and V8 grew the thread's new space to its 32 MB
 * most of which stayed resident for good; capped, the thread scavenges more often for no
 * CPU a message the bench could tell apart (docs/decisions/memory.md).
 */
export const INGEST_THREAD_LIMITS = { maxYoungGenerationSizeMb: 6 } as const;

interface Pending {
  resolve: (reply: Extract<IngestReply, { filed: unknown }>) => void;
  reject: (error: Error) => void;
}

/**
 * The main-thread side of the ingest thread: hands it messages and settles each promise when
 * the commit holding that message is done. A crashed thread fails its pending messages (the
 * SMTP client gets 451 and retries) and is started again.
 */
export class IngestWriter implements Ingest {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;

  /** `config` goes to the thread when it starts: by then it holds the secret. */
  constructor(private readonly config: Config) {}

  /** Resolves when the thread is ready (its modules loaded, its connection open) or has exited. */
  private started: Promise<void> = Promise.resolve();

  start(): Promise<void> {
    if (!this.worker && !this.closing) this.worker = this.spawn();
    return this.started;
  }

  async file(
    deps: MailboxDeps,
    message: InboundMessage,
    parsed: ParsedEmail,
    folders: FolderRow[],
  ): Promise<Filed[]> {
    const reply = await this.submit({
      raw: message.raw,
      parsed: { ...parsed, attachments: parsed.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) },
      inboxes: message.inboxes,
      folders,
      authResults: message.authResults,
      spam: message.spam ?? false,
      spamCheck: message.spamCheck,
      nullSender: message.nullSender ?? false,
      receivedAt: (message.receivedAt ?? new Date()).toISOString(),
    });
    deps.bus.publish(reply.events);
    const byId = new Map(message.inboxes.map((inbox) => [inbox.id, inbox]));
    return reply.filed.map((f) => ({ inbox: byId.get(f.inboxId)!, uid: f.uid }));
  }

  /** `job.raw` moves to the thread when it owns its memory (no copy): the caller must not read it after. */
  private submit(job: Omit<IngestJob, 'id'>): Promise<Extract<IngestReply, { filed: unknown }>> {
    const { worker } = this;
    if (!worker) return Promise.reject(new Error('the ingest thread is not started'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id }, transferList(job.raw));
    });
  }

  /**
   * Lets the thread finish what it holds for up to `graceMs`, then ends it. Resolves only once
   * the thread has exited: a thread still starting would otherwise open the database file after
   * the caller believed the server stopped (and, say, removed its data folder).
   */
  async close(graceMs = 10_000): Promise<void> {
    this.closing = true;
    if (!this.worker) return;
    const deadline = Date.now() + graceMs;
    while (this.pending.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const worker = this.worker;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    const left = Math.max(0, deadline - Date.now());
    await Promise.race([exited, new Promise((r) => setTimeout(r, left).unref())]);
    await worker.terminate();
  }

  /** The running thread's V8 limits (undefined before start and after close). */
  get threadLimits(): ResourceLimits | undefined {
    return this.worker?.resourceLimits;
  }

  private spawn(): Worker {
    const worker = startThread('ingest-thread', this.config, INGEST_THREAD_LIMITS);
    this.started = new Promise((resolve) => {
      worker.once('exit', () => resolve());
      worker.on('message', (message: unknown) => message === 'ready' && resolve());
    });
    worker.on('message', (reply: IngestReply | 'ready') => {
      if (reply === 'ready') return;
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply);
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.failAll(new Error('ingest thread exited'));
      if (!this.closing) this.worker = this.spawn();
    });
    return worker;
  }

  private failAll(error: Error): void {
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(error);
    }
  }
}
