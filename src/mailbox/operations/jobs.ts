import { nodeIdOf } from '../../config.js';
import type { MailboxDeps } from '../deps.js';

/**
 * Runs background job `name` here unless another node has run it within `everyMs`: the lease
 * `job:<name>` is taken for `everyMs` and kept to its end, so across nodes the job runs once an
 * interval and never twice at once (contract 11). The node that holds it takes it again at its
 * next turn; a node that died lets it go when the lease ends. Answers null when skipped.
 */
export async function runJobOnce<T>(
  deps: MailboxDeps,
  name: string,
  everyMs: number,
  work: () => Promise<T>,
): Promise<T | null> {
  const claim = await deps.store.nodes.acquire(`job:${name}`, nodeIdOf(deps.config), everyMs);
  return claim === null ? null : work();
}
