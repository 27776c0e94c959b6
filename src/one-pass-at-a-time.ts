/**
 * Runs a queue-reading pass one at a time. A request while a pass runs asks for one more pass
 * after it, never a second one at once: two passes reading the same due rows side by side would
 * claim or launch them twice.
 */
export class OnePassAtATime {
  private current: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly pass: () => Promise<void>,
    /** Checked before each extra pass (a stopping worker runs no more). */
    private readonly goOn: () => boolean = () => true,
  ) {}

  request(): void {
    if (this.current) {
      this.again = true;
      return;
    }
    this.current = this.untilQuiet().finally(() => {
      this.current = null;
    });
  }

  /** Resolves once the pass in progress, and those asked for during it, are done. */
  async idle(): Promise<void> {
    await this.current;
  }

  private async untilQuiet(): Promise<void> {
    do {
      this.again = false;
      await this.pass();
    } while (this.again && this.goOn());
  }
}
