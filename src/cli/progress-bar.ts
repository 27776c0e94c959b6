/** A one-line progress bar on a terminal, redrawn at most every 100 ms; nothing elsewhere. */
export class ProgressBar {
  private last = 0;
  private drawn = false;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly width = 30,
  ) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(label: string, done: number, total: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100 && done < total) return;
    this.last = now;
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(share * this.width);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(this.width - filled)}`;
    const count = `${done.toLocaleString('en')}/${total.toLocaleString('en')} rows`;
    this.stream.write(`\r[${bar}] ${String(Math.floor(share * 100)).padStart(3)}% ${count} ${label}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the bar so what follows starts on a clean line. */
  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
