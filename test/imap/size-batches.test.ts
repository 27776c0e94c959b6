import { expect, it } from 'vitest';
import { batchesBySize, uidSet } from '../../src/imap/size-batches.js';

const MB = 1024 * 1024;

it('splits downloads so no batch holds more than the byte limit, a large message going alone', () => {
  const sizes = new Map([
    [1, 1 * MB],
    [2, 2 * MB],
    [3, 28 * MB],
    [4, 3 * MB],
    [5, 9 * MB],
    [6, 9 * MB],
  ]);
  const batches = batchesBySize([1, 2, 3, 4, 5, 6], (uid) => sizes.get(uid)!, 200, 16 * MB);
  expect(batches).toEqual([[1, 2], [3], [4, 5], [6]]);
});

it('still stops at the message count when messages are small', () => {
  const uids = Array.from({ length: 450 }, (_, i) => i + 1);
  expect(batchesBySize(uids, () => 2000, 200, 16 * MB).map((b) => b.length)).toEqual([200, 200, 50]);
});

it('writes uid sets as ranges, so 20,000 uids fit an IMAP command line', () => {
  expect(uidSet([9, 1, 2, 3, 7, 10])).toBe('1:3,7,9:10');
  const many = Array.from({ length: 20_000 }, (_, i) => i + 1).filter((u) => u % 1000 !== 0);
  expect(uidSet(many).length).toBeLessThan(1000);
});
