import type { MailboxDeps } from '../deps.js';

/** A probe result is reused this long, so /readyz polled hard still writes at most once a second. */
const PROBE_EVERY_MS = 1000;

/**
 * Whether the database takes writes now, for /readyz: a database that can be read but not
 * written (a file or disk turned read-only, a full disk) answers reads while SMTP can only say
 * 451, so it is not ready. The change is logged once each way, with the reason.
 */
export function storageWritable(
  deps: Pick<MailboxDeps, 'store' | 'log'>,
  probeEveryMs = PROBE_EVERY_MS,
): () => Promise<boolean> {
  let writable = true;
  let checkedAt = -Infinity;
  // Callers that arrive while a probe runs get its answer, as they did when it was synchronous.
  let probing: Promise<boolean> | null = null;
  const probe = async () => {
    try {
      await deps.store.health.probeWrite();
      if (!writable) deps.log.info('the database takes writes again: /readyz answers ready');
      writable = true;
    } catch (error) {
      if (writable) {
        deps.log.error(
          { err: error },
          'the database cannot be written: /readyz answers 503, SMTP 451 and API writes 503 until it can',
        );
      }
      writable = false;
    }
    return writable;
  };
  return () => {
    if (probing) return probing;
    const now = Date.now();
    if (now - checkedAt < probeEveryMs) return Promise.resolve(writable);
    checkedAt = now;
    probing = probe().finally(() => (probing = null));
    return probing;
  };
}
