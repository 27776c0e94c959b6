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

/** How long the threads stay after their last job before they end (started again by the next). */
const IDLE_MS = 60_000;

/**
 * A few parse threads, started by the first message that needs one (most mail is small enough to
 * parse inline: parsesInline) and ended after IDLE_MS without work, since each thread holds
 * 30-35 MB of its own heap and code. A thread that runs past `deadlineMs` on a job is
 * terminated (a fresh one takes its place): the jobs it held run again, each alone on a thread,
 * and one that again runs past the deadline fails with ParseTimeout. So no message can hold the
 * server's main thread, nor a parse thread for long, nor take innocent messages down with it.
 */
export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly deadlineMs: number,
    private readonly log?: Logger,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Nothing until a message needs a thread: the pool starts its threads then. */
  start(): void {}

  /** The threads running now (0 until a job needs them, and again after IDLE_MS without work). */
  get threads(): number {
    return this.slots.length;
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

  /** Starts the threads now and resolves once each has loaded the parser (the next messages then wait for none). */
  async ready(): Promise<void> {
    this.wake();
    while (this.slots.some((slot) => !slot.ready) && !this.closed)
      await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
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
      this.wake();
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

  /** Starts the threads when there are none, and keeps them while there is work. */
  private wake(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.closed) return;
    while (this.slots.length < this.size) this.spawn();
  }

  /** After the last job: the threads end if no other comes within idleMs. */
  private idleSoon(): void {
    if (this.queue.length > 0 || this.slots.some((slot) => slot.jobs.size > 0)) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.idleOut(), this.idleMs);
    this.idleTimer.unref();
  }

  private async idleOut(): Promise<void> {
    if (this.queue.length > 0 || this.slots.some((slot) => slot.jobs.size > 0)) return;
    // Out of `slots` first, so their exit is not taken for a death to make up for.
    const idle = this.slots.splice(0);
    await Promise.all(idle.map((slot) => slot.worker.terminate()));
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
      this.idleSoon();
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
