// Engines: SQLite only: the order of a server's start, the same on both engines.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { WITH_THREADS, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

describe("a server's start", () => {
  let server: TestServer | undefined;
  afterAll(async () => server?.stop());

  // Loading the ingest thread's modules takes a core for a second or more: while it did, a fresh
  // server's first requests (on two cores) waited for a core.
  it('listens once its ingest thread is ready to file', async () => {
    const seen: string[] = [];
    const emit = Worker.prototype.emit;
    Worker.prototype.emit = function (this: Worker, event: string | symbol, ...args: unknown[]) {
      if (event === 'message' && args[0] === 'ready') seen.push('a thread ready');
      return emit.call(this, event, ...args);
    };
    try {
      server = await startServer(WITH_THREADS);
      seen.push('started');
      expect((await server.api('/me')).status).toBe(200);
    } finally {
      Worker.prototype.emit = emit;
    }
    // The parse threads start with the first message that needs one: only the ingest thread's.
    expect(seen).toEqual(['a thread ready', 'started']);
  });
});
