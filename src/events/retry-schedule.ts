const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits between webhook attempts (contract 7): 8 attempts over about 32 hours, then failed. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/** An endpoint failing this long without a single success is disabled (contract 7). */
export const DEFAULT_DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

/** Spread of each wait, so deliveries that failed together do not all come back together. */
const JITTER = 0.1;

/**
 * The wait before the next attempt after `attemptsMade` failed attempts, or null when the
 * delivery has had all its attempts. `random` is in [0, 1).
 */
export function retryDelay(
  attemptsMade: number,
  delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
  random: () => number = Math.random,
): number | null {
  const base = delays[attemptsMade - 1];
  if (base === undefined || attemptsMade < 1) return null;
  return Math.max(0, Math.round(base * (1 + JITTER * (2 * random() - 1))));
}
