import { describe, expect, it } from 'vitest';
import { LARGE_MESSAGE_BYTES, releaseAfterLarge } from '../../src/mailbox/ingest/release-large.js';

/** A large buffer no one holds any more, and a way to ask whether it is still alive. */
function garbage(): WeakRef<Buffer> {
  return new WeakRef(Buffer.alloc(LARGE_MESSAGE_BYTES, 1));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('releaseAfterLarge', () => {
  it("collects a large message's leftovers soon after it is done", async () => {
    const left = garbage();
    releaseAfterLarge(LARGE_MESSAGE_BYTES);
    await pause(700);
    expect(left.deref()).toBeUndefined();
  });
});
