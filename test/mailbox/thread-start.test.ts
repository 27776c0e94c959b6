import { describe, expect, it } from 'vitest';
import type { ParseReply } from '../../src/mailbox/ingest/parse-pool.js';
import { startThread } from '../../src/mailbox/ingest/thread-start.js';

// The servers in the other tests start their threads from the compiled sources
// (test/helpers/compiled-threads.ts); this one takes the way `tsx` runs them (dev, the bench).
describe('a worker thread started from the TypeScript sources', () => {
  it('registers tsx in the thread and runs the entry: the parse thread parses a message', async () => {
    const worker = startThread('parse-thread', null);
    try {
      const reply = await new Promise<ParseReply>((resolve, reject) => {
        worker.on('error', reject);
        worker.on('message', (message: ParseReply | 'ready') => {
          if (message === 'ready') {
            const raw = Buffer.from('From: a@example.com\r\nSubject: Through tsx\r\n\r\nHello\r\n');
            worker.postMessage({ id: 1, raw });
          } else resolve(message);
        });
      });
      expect(reply).toMatchObject({ id: 1, parsed: { subject: 'Through tsx' } });
    } finally {
      await worker.terminate();
    }
  });
});
