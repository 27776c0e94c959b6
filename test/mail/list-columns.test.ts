import { describe, expect, it } from 'vitest';
import { previewOf } from '../../src/mail/list-columns.js';

/** The preview as it was first defined (and as stored previews were made): every answer must stay. */
const asDefined = (text: string) => text.slice(0, 800).replace(/\s+/g, ' ').trim().slice(0, 200);

/** Every UTF-16 unit `\s` takes, and some it does not (a zero-width space, a surrogate half, letters). */
const SPACES = [...Array(0x10000).keys()].map((u) => String.fromCharCode(u)).filter((c) => /\s/.test(c));
const OTHERS = ['a', 'Z', '9', '.', '\u200b', '\u00ad', '\ud83d', '\ude00', 'é', '語'];

/** A small deterministic generator (mulberry32), so a failure names an input that repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('previewOf', () => {
  it('takes as white space every unit a regular expression does, and nothing else', () => {
    expect(SPACES).toHaveLength(25);
    for (const space of SPACES) expect(previewOf(`a${space}${space}b${space}`)).toBe('a b');
    for (const other of OTHERS) expect(previewOf(` ${other} `)).toBe(other);
  });

  it('answers what the regular-expression form answers, at and around its 200 and 800 characters', () => {
    const next = random(31);
    const pick = (from: string[]) => from[Math.floor(next() * from.length)]!;
    for (let n = 0; n < 3000; n++) {
      const length = Math.floor(next() * 1000);
      const spaceShare = next();
      let text = '';
      while (text.length < length) {
        const run = 1 + Math.floor(next() * (next() < 0.1 ? 300 : 6));
        text += (next() < spaceShare ? pick(SPACES) : pick(OTHERS)).repeat(run);
      }
      expect(previewOf(text), JSON.stringify(text)).toBe(asDefined(text));
    }
    for (const text of [
      '',
      ' ',
      'a'.repeat(199) + '  b',
      'a'.repeat(200) + ' b',
      ' '.repeat(799) + 'a',
      ' '.repeat(800) + 'a',
    ])
      expect(previewOf(text)).toBe(asDefined(text));
  });
});
