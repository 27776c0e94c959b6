import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import { compiledSync } from './compiled.js';

/**
 * Stands in for src/mailbox/ingest/thread-start.ts under vitest (vitest.config.ts resolves the
 * ingest modules' `./thread-start.js` here): the parse and ingest threads start from the esbuild
 * output of the same sources, as the CLI and serve child processes do, instead of registering tsx
 * in every new thread (half the CPU of a thread's start, three threads per SQLite server).
 * test/mailbox/thread-start.test.ts still starts a thread the tsx way.
 */
export function startThread(name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  return new Worker(compiledSync(`src/mailbox/ingest/${name}.ts`), { workerData, resourceLimits });
}
