import type { InflightBudget } from './inflight-budget.js';

/** Unused bytes at the end of a block that are not worth a copy to get rid of. */
const SLACK = 64 * 1024;

/** Why a message's bytes were let go before its end: it is answered 552 or 452, never stored. */
export type Discarded = 'too-large' | 'over-budget';

/**
 * One inbound message in memory, the Received header first, every byte charged to the in-flight
 * budget. With a declared SIZE the message is one buffer allocated up front and each chunk is
 * copied in as it arrives, so the socket's buffers are let go at once and no second copy is ever
 * made; without one the chunks are kept and joined once, at the end. Once discarded, later chunks
 * are dropped (the stream is still drained) and the budget gets its bytes back at once.
 */
export class MessageBuffer {
  private charged = 0;
  private block: Buffer | null = null;
  private used = 0;
  private chunks: Buffer[] = [];
  discarded: Discarded | null = null;

  constructor(
    private readonly budget: InflightBudget,
    head: Buffer,
    declaredSize?: number,
  ) {
    if (declaredSize) {
      if (!this.charge(head.length + declaredSize)) return;
      this.block = Buffer.allocUnsafe(head.length + declaredSize);
      this.used = head.copy(this.block);
    } else {
      if (!this.charge(head.length)) return;
      this.chunks.push(head);
    }
  }

  push(chunk: Buffer): void {
    if (this.discarded) return;
    if (this.block && this.chunks.length === 0 && this.used + chunk.length <= this.block.length) {
      this.used += chunk.copy(this.block, this.used);
      return;
    }
    // More than the sender declared (SIZE is an estimate), or no SIZE at all.
    if (this.charge(chunk.length)) this.chunks.push(chunk);
  }

  /**
   * The whole message as one Buffer that owns (about) exactly its memory: a view into a much larger
   * block would take the whole block along wherever the message is copied (a worker's postMessage),
   * so a sender that declared far more than it sent costs one copy of what it did send.
   */
  result(): Buffer {
    if (this.block && this.chunks.length === 0) {
      const view = this.block.subarray(0, this.used);
      return this.block.length - this.used <= SLACK ? view : Buffer.from(view);
    }
    const parts = this.block ? [this.block.subarray(0, this.used), ...this.chunks] : this.chunks;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  discard(reason: Discarded): void {
    this.discarded ??= reason;
    this.release();
  }

  /** Gives the bytes back to the budget; call once the reply is sent. */
  release(): void {
    this.budget.release(this.charged);
    this.charged = 0;
    this.block = null;
    this.chunks = [];
  }

  private charge(bytes: number): boolean {
    if (this.budget.take(bytes)) {
      this.charged += bytes;
      return true;
    }
    this.discard('over-budget');
    return false;
  }
}
