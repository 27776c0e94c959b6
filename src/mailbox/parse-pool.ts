import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { parseEmail, parseHeadersOnlyBounded } from '../mail/parse.js';
import type { ParsedAttachment, ParsedEmail } from '../mail/types.js';
import type { MailboxDeps } from './deps.js';
import { Unprocessable } from './errors.js';
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
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/**
 * A few parse threads, started with the server (restarted when one dies). Each parses one message at a time; one that runs
 * past `deadlineMs` is terminated (its slot starts a fresh thread) and its job fails with
 * ParseTimeout, so no message can hold the server's main thread or a thread for long.
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
  ) {
    for (let i = 0; i < size; i++) this.spawn();
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
    for (const job of this.queue.splice(0)) job.settle(new Error('parse pool closed'));
    await Promise.all(this.slots.splice(0).map((slot) => this.retire(slot, new Error('parse pool closed'))));
  }

  private run(input: Omit<ParseJob, 'id'>): Promise<Exclude<ParseReply, { error: string }>> {
    if (this.closed) return Promise.reject(new Error('parse pool closed'));
    return new Promise((resolve, reject) => {
      const settle = (reply: ParseReply | Error) => {
        if (reply instanceof Error) reject(reply);
        else if ('error' in reply) reject(new Error(reply.error));
        else resolve(reply);
      };
      this.queue.push({ ...input, id: this.nextId++, settle });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.ready && !slot.job) this.assign(slot, this.queue.shift()!);
    }
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    slot.timer = setTimeout(() => {
      this.log?.warn(
        { deadlineMs: this.deadlineMs },
        'a message took too long to parse; parse thread restarted',
      );
      void this.retire(slot, new ParseTimeout(this.deadlineMs));
    }, this.deadlineMs);
    slot.worker.postMessage({ id: job.id, raw: job.raw, attachmentId: job.attachmentId } satisfies ParseJob);
  }

  private spawn(): void {
    const slot: Slot = { worker: startThread('parse-thread', null), ready: false, job: null, timer: null };
    this.slots.push(slot);
    slot.worker.on('message', (message: ParseReply | 'ready') => {
      if (message === 'ready') slot.ready = true;
      else if (slot.job?.id === message.id) this.finish(slot, message);
      this.dispatch();
    });
    slot.worker.on('error', (error) => void this.retire(slot, error));
    slot.worker.on('exit', () => void this.retire(slot, new Error('parse thread exited')));
  }

  private finish(slot: Slot, reply: ParseReply | Error): void {
    const job = slot.job;
    if (slot.timer) clearTimeout(slot.timer);
    slot.job = null;
    slot.timer = null;
    job?.settle(reply);
  }

  /** Ends a slot's thread and starts another in its place; its job, if any, fails with `reason`. */
  private async retire(slot: Slot, reason: Error): Promise<void> {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    this.finish(slot, reason);
    if (!this.closed) this.spawn(); // queued jobs go to it once it is ready
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

/**
 * Parses an inbound message: on a parse thread when there is a pool, inline otherwise. A parse
 * that fails there (past its deadline, or the thread died) falls back to a bounded reading of
 * the headers, so the message is still stored and its sender still gets 250.
 */
export async function parseInbound(deps: MailboxDeps, raw: Buffer): Promise<ParsedEmail> {
  if (!deps.parser) return parseEmail(raw);
  try {
    return await deps.parser.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    deps.log.warn({ reason: why, bytes: raw.length }, 'inbound message stored from its headers only');
    return parseHeadersOnlyBounded(
      raw,
      `full parse failed (${why}); only the headers and the start of the body were read`,
    );
  }
}

/** One attachment's bytes, parsed on a parse thread when there is a pool. */
export async function parseAttachment(
  deps: MailboxDeps,
  raw: Buffer,
  attachmentId: string,
): Promise<ParsedAttachment | null> {
  if (!deps.parser) return (await parseEmail(raw)).attachments.find((a) => a.id === attachmentId) ?? null;
  try {
    return await deps.parser.attachment(raw, attachmentId);
  } catch (error) {
    if (error instanceof ParseTimeout)
      throw new Unprocessable(`this message takes too long to parse (over ${error.deadlineMs} ms)`);
    throw error;
  }
}
