import { describe, expect, it } from 'vitest';
import { parseReceived } from '../../src/mail/screening/parse-screened.js';
import { hostileShapes } from './hostile-shapes.js';

/**
 * The CPU milliseconds of one parse of received mail, its screening included: unlike the wall
 * clock, a busy machine's other processes do not add to it (parsing does no I/O).
 */
async function parseCpuMs(raw: Buffer): Promise<number> {
  const start = process.cpuUsage();
  await parseReceived(raw);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU time of a few parses of each input, the sizes taken in turn within each round so
 * that all of them see the same moments of the machine (garbage collection only ever adds).
 */
async function fastestParsesMs(raws: Buffer[], rounds = 5): Promise<number[]> {
  const least = raws.map(() => Infinity);
  for (let round = 0; round < rounds; round++)
    for (const [i, raw] of raws.entries()) least[i] = Math.min(least[i]!, await parseCpuMs(raw));
  return least;
}

/**
 * 4x the input may take at most 4x the time, with a margin for a shared machine; a quadratic
 * step makes it 16x. Times under FLOOR_MS are noise, so a step is measured from at least that.
 */
const GROWTH = 4;
const MARGIN = 2.5;
const FLOOR_MS = 15;

describe('parsing and screening received mail: time grows linearly with hostile input', () => {
  for (const [name, make] of Object.entries(hostileShapes)) {
    it(name, async () => {
      await parseReceived(make(1)); // warm the code paths this shape takes
      const times = await fastestParsesMs([1, GROWTH, GROWTH * GROWTH].map((n) => make(n)));
      const [small, medium, large] = times as [number, number, number];
      const detail = `${name}: ${times.map((t) => t.toFixed(1)).join(' / ')} ms at 1x / 4x / 16x`;
      expect(medium / Math.max(small, FLOOR_MS), detail).toBeLessThan(GROWTH * MARGIN);
      expect(large / Math.max(medium, FLOOR_MS), detail).toBeLessThan(GROWTH * MARGIN);
    });
  }
});
