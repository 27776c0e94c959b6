import { describe, expect, it } from 'vitest';
import { parseEmail } from '../../src/mail/parse.js';
import { hostileShapes } from './hostile-shapes.js';

/** The fastest of a few parses, in ms: a busy machine only ever adds time, so the least is the truest. */
async function fastestParseMs(raw: Buffer, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await parseEmail(raw);
    times.push(performance.now() - start);
  }
  return Math.min(...times);
}

/**
 * 4x the input may take at most 4x the time, with a margin for a shared machine; a quadratic
 * step makes it 16x. Times under FLOOR_MS are noise, so a step is measured from at least that.
 */
const GROWTH = 4;
const MARGIN = 2.5;
const FLOOR_MS = 15;

describe('parseEmail: time grows linearly with hostile input', () => {
  for (const [name, make] of Object.entries(hostileShapes)) {
    it(name, async () => {
      await parseEmail(make(1)); // warm the code paths this shape takes
      const times: number[] = [];
      for (const n of [1, GROWTH, GROWTH * GROWTH]) times.push(await fastestParseMs(make(n)));
      const [small, medium, large] = times as [number, number, number];
      const detail = `${name}: ${times.map((t) => t.toFixed(1)).join(' / ')} ms at 1x / 4x / 16x`;
      expect(medium / Math.max(small, FLOOR_MS), detail).toBeLessThan(GROWTH * MARGIN);
      expect(large / Math.max(medium, FLOOR_MS), detail).toBeLessThan(GROWTH * MARGIN);
    });
  }
});
