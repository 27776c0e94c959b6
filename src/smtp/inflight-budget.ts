/**
 * Bytes of message data that all SMTP sessions together may hold in memory, from DATA until the
 * reply is sent. A message that does not fit is not buffered and gets 452 4.3.1 (the sender
 * retries later), so a burst of large messages cannot push the process out of memory.
 */
export class InflightBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  get remaining(): number {
    return this.limit - this.held;
  }

  /** Takes `bytes` if they fit; false (and nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}
