import type { StoredCounts } from '../../store/metrics.js';
import type { MailboxDeps } from '../deps.js';

/** Traffic counters and queue depths the database already holds, for `GET /metrics`. */
export async function storedMetrics(deps: MailboxDeps): Promise<StoredCounts> {
  return deps.store.metrics.counts();
}
