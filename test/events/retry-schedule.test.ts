import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, retryDelay } from '../../src/events/retry-schedule.js';

describe('webhook retry schedule', () => {
  it('follows the contract: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const middle = () => 0.5;
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, DEFAULT_RETRY_DELAYS_MS, middle));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(retryDelay(8)).toBeNull();
  });

  it('spreads each wait by at most 10% either way', () => {
    expect(retryDelay(1, DEFAULT_RETRY_DELAYS_MS, () => 0)).toBe(4_500);
    expect(retryDelay(1, DEFAULT_RETRY_DELAYS_MS, () => 0.999999)).toBeLessThanOrEqual(5_500);
    for (let i = 0; i < 100; i++) {
      const d = retryDelay(2)!;
      expect(d).toBeGreaterThanOrEqual(270_000);
      expect(d).toBeLessThanOrEqual(330_000);
    }
  });

  it('takes a custom schedule', () => {
    expect(retryDelay(1, [10, 20], () => 0.5)).toBe(10);
    expect(retryDelay(2, [10, 20], () => 0.5)).toBe(20);
    expect(retryDelay(3, [10, 20])).toBeNull();
    expect(retryDelay(1, [])).toBeNull();
  });
});
