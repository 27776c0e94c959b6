import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread from an entry module beside this one (`name` without extension). From
 * TypeScript sources (tests run from the project root) the thread registers tsx before loading it.
 */
export function startThread(name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL(`./${name}.js`, import.meta.url), { workerData, resourceLimits });
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}
