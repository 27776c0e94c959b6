import type { DeliveryStatus } from '../db/schema.js';
import type { ResolvedOutboundOptions } from './options.js';
import type { Outcome } from './outcome.js';

export interface Decision {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
  /** Why it has not gone (yet): the last reply or error; null once delivered. */
  error: string | null;
  /** Set when a temporary failure turned final because the message waited too long. */
  expired: boolean;
}

/** Delay before attempt `attempts + 1`, after `attempts` temporary failures: base, doubling, capped. */
export function retryDelayMs(attempts: number, options: ResolvedOutboundOptions): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(options.retryBaseMs * 2 ** Math.min(exponent, 30), options.retryMaxMs);
}

/**
 * What to record after an attempt (`row.attempts` counts it: attempts are counted when claimed):
 * delivered, captured, failed for good (5xx, or waited longer
 * than giveUpAfterMs), or deferred to the next slot of the backoff.
 */
export function decide(
  outcome: Outcome,
  row: { attempts: number; created_at: string },
  now: Date,
  options: ResolvedOutboundOptions,
): Decision {
  if (outcome.result === 'delivered' || outcome.result === 'captured') {
    return { status: outcome.result, nextAttemptAt: null, error: null, expired: false };
  }
  if (outcome.result === 'permanent') {
    return { status: 'failed', nextAttemptAt: null, error: outcome.response, expired: false };
  }
  const next = now.getTime() + retryDelayMs(row.attempts, options);
  if (next - Date.parse(row.created_at) > options.giveUpAfterMs) {
    return { status: 'failed', nextAttemptAt: null, error: outcome.response, expired: true };
  }
  return {
    status: 'deferred',
    nextAttemptAt: new Date(next).toISOString(),
    error: outcome.response,
    expired: false,
  };
}
