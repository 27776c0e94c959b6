import { MailroomError } from '../errors.js';

/** Seconds a refused wait is told to wait: a slot frees whenever one of the key's waits ends. */
const RETRY_AFTER_SECONDS = 1;

/** A key already holds as many waits as it may: the doors answer 429 `rate_limited` with Retry-After. */
export class TooManyWaits extends MailroomError {
  readonly retryAfterSeconds = RETRY_AFTER_SECONDS;
  constructor(max: number) {
    super(
      'rate_limited',
      `this API key already holds ${max} waits for mail, the most one key may hold at once ` +
        `(MAILROOM_MAX_WAITS_PER_KEY); one ends when its mail comes, its time runs out or its client ` +
        `leaves: retry in ${RETRY_AFTER_SECONDS} s`,
    );
  }
}

/**
 * How many waits each API key holds in this process, at most `max()` at once. Counted here, not
 * in the database: a wait lives in one process's memory and ends with it, and the count must be
 * free again the moment a wait ends. Several nodes each allow `max()`.
 */
export class WaitSlots {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: () => number) {}

  /** Takes one of `keyId`'s slots (TooManyWaits when none is left); the returned function gives it back. */
  take(keyId: string): () => void {
    const max = this.max();
    const count = this.held.get(keyId) ?? 0;
    if (count >= max) throw new TooManyWaits(max);
    this.held.set(keyId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(keyId) ?? 1) - 1;
      if (left > 0) this.held.set(keyId, left);
      else this.held.delete(keyId);
    };
  }

  /** Whether any key holds a wait now. */
  get any(): boolean {
    return this.held.size > 0;
  }
}
