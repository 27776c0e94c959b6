import { afterEach, describe, expect, it } from 'vitest';
import { ParsePool } from '../../src/mailbox/ingest/parse-pool.js';

/** A message the pool parses (a big one: small mail is parsed inline and never reaches it). */
const message = (subject: string) =>
  Buffer.from(
    `From: a@example.com\r\nSubject: ${subject}\r\n\r\n${'A line of a long body.\r\n'.repeat(2000)}`,
  );

/**
 * The parse threads hold 30-35 MB each; most mail never needs them. They start with the first
 * message that does and end after a while without work, so an idle server, or one that takes
 * only small mail, keeps none.
 */
describe('the parse pool starts its threads when needed and ends them when idle', () => {
  let pool: ParsePool | undefined;
  afterEach(() => pool?.close());

  it('runs no thread until a message needs one, then its threads until they idle out, and again for the next', async () => {
    pool = new ParsePool(2, 30_000, undefined, 300);
    pool.start();
    expect(pool.threads).toBe(0);

    expect((await pool.parse(message('First'))).subject).toBe('First');
    expect(pool.threads).toBe(2);
    await expect.poll(() => pool!.threads, { timeout: 20_000, interval: 50 }).toBe(0);

    expect((await pool.parse(message('Second'))).subject).toBe('Second');
    expect(pool.threads).toBe(2);
  });

  it('keeps its threads while messages keep coming closer together than the idle time', async () => {
    pool = new ParsePool(1, 30_000, undefined, 5_000);
    for (let i = 0; i < 8; i++) {
      await pool.parse(message(`Message ${i}`));
      expect(pool.threads).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
