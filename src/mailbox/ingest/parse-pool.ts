import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ParsedAttachment, ParsedEmail } from '../../mail/types.js';
import { startThread } from './thread-start.js';

export interface ParseJob {
  id: number;
  raw: Uint8Array;
  /** Set: answer with this one attachment (content included) instead of the whole message. */
  attachmentId?: string;
}

export type ParseReply =
  | { id: number; parsed: ParsedEmail }
  | { id: number; attachment: ParsedAttachment | null }
  | { id: number; error: string };

interface Job extends ParseJob {
  settle: (reply: ParseReply | Error) => void;
  /** Set once the job shared a thread that hung or died: it then runs alone, so blame is sure. */
  suspect: boolean;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  jobs: Map<number, Job>;
}

/**
 * Messages one thread parses at once: mailparser waits on the event loop between chunks, so a
 * thread that parses one at a time idles half the time.
 */
const JOBS_PER_THREAD = 10;

/**
 * A few parse threads, started with the server. A thread that runs past `deadlineMs` on a job is
 * terminated (a fresh one takes its place): the jobs it held run again, each alone on a thread,
 * and one that again runs past the deadline fails with ParseTimeout. So no message can hold the
 * server's main thread, nor a parse thread for long, nor take innocent messages down with it.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly deadlineMs: number,
    private readonly log?: Logger,
  ) {}

  /** Starts the threads (once; after close, never). */
  start(): void {
    if (this.closed || this.slots.length > 0) return;
    for (let i = 0; i < this.size; i++) this.spawn();
  }

  /** The message with its attachments' metadata (content left empty). */
  async parse(raw: Buffer): Promise<ParsedEmail> {
    const reply = await this.run({ raw });
    if (!('parsed' in reply)) throw new Error('parse thread answered out of turn');
    return { ...reply.parsed, attachments: reply.parsed.attachments.map(withBuffer) };
  }

  /** One attachment of the message, content included; null when it has none with that id. */
  async attachment(raw: Buffer, attachmentId: string): Promise<ParsedAttachment | null> {
    const reply = await this.run({ raw, attachmentId });
    if (!('attachment' in reply)) throw new Error('parse thread answered out of turn');
    return reply.attachment ? withBuffer(reply.attachment) : null;
  }

  /** Resolves once every thread has loaded the parser (the first messages then wait for none). */
  async ready(): Promise<void> {
    while (this.slots.some((slot) => !slot.ready) && !this.closed)
      await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = new Error('parse pool closed');
    for (const job of this.queue.splice(0)) job.settle(closed);
    await Promise.all([...this.slots].map((slot) => this.retire(slot, () => closed)));
  }

  private run(input: Omit<ParseJob, 'id'>): Promise<Exclude<ParseReply, { error: string }>> {
    if (this.closed) return Promise.reject(new Error('parse pool closed'));
    return new Promise((resolve, reject) => {
      const settle = (reply: ParseReply | Error) => {
        if (reply instanceof Error) reject(reply);
        else if ('error' in reply) reject(new Error(reply.error));
        else resolve(reply);
      };
      this.queue.push({ ...input, id: this.nextId++, settle, suspect: false });
      this.dispatch();
    });
  }

  /** Each job to the least busy thread; a suspect (queued first) waits for a thread of its own. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const open = this.slots.filter(
        (slot) =>
          slot.ready &&
          (next.suspect ? slot.jobs.size === 0 : slot.jobs.size < JOBS_PER_THREAD) &&
          ![...slot.jobs.values()].some((job) => job.suspect),
      );
      const slot = open.sort((a, b) => a.jobs.size - b.jobs.size)[0];
      if (!slot) return;
      this.assign(slot, this.queue.shift()!);
    }
  }

  private assign(slot: Slot, job: Job): void {
    slot.jobs.set(job.id, job);
    job.timer = setTimeout(() => {
      this.log?.warn(
        { deadlineMs: this.deadlineMs },
        'a parse ran past its deadline; parse thread restarted',
      );
      void this.retire(slot, (j) => (j.suspect ? new ParseTimeout(this.deadlineMs) : null));
    }, this.deadlineMs);
    slot.worker.postMessage({ id: job.id, raw: job.raw, attachmentId: job.attachmentId } satisfies ParseJob);
  }

  private spawn(): void {
    const slot: Slot = { worker: startThread('parse-thread', null), ready: false, jobs: new Map() };
    this.slots.push(slot);
    slot.worker.on('message', (message: ParseReply | 'ready') => {
      if (message === 'ready') slot.ready = true;
      else this.finish(slot, message.id, message);
      this.dispatch();
    });
    const died = (error: Error) => void this.retire(slot, (j) => (j.suspect ? error : null));
    slot.worker.on('error', died);
    slot.worker.on('exit', () => died(new Error('parse thread exited')));
  }

  private finish(slot: Slot, id: number, reply: ParseReply | Error): void {
    const job = slot.jobs.get(id);
    if (!job) return;
    clearTimeout(job.timer);
    slot.jobs.delete(id);
    job.settle(reply);
  }

  /**
   * Ends a slot's thread and starts another in its place. Each job it held fails with what
   * `verdict` says, or (null) goes back to the head of the queue as a suspect.
   */
  private async retire(slot: Slot, verdict: (job: Job) => Error | null): Promise<void> {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const retry: Job[] = [];
    for (const job of [...slot.jobs.values()]) {
      const error = verdict(job);
      if (error) this.finish(slot, job.id, error);
      else {
        clearTimeout(job.timer);
        slot.jobs.delete(job.id);
        retry.push({ ...job, suspect: true, timer: undefined });
      }
    }
    this.queue.unshift(...retry);
    // The queue goes to the new thread once it is ready; one that died starting is not retried hot.
    const respawn = () => !this.closed && this.spawn();
    if (slot.ready) respawn();
    else setTimeout(respawn, 1000).unref();
    await slot.worker.terminate();
  }
}

export class ParseTimeout extends Error {
  constructor(readonly deadlineMs: number) {
    super(`parsing took longer than ${deadlineMs} ms`);
  }
}

/** Structured cloning turns a Buffer into a plain Uint8Array. */
function withBuffer(a: ParsedAttachment): ParsedAttachment {
  const c = a.content as Uint8Array;
  return { ...a, content: Buffer.from(c.buffer, c.byteOffset, c.byteLength) };
}
