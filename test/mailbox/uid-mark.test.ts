import { describe, expect, it } from 'vitest';
import { nextUidMark } from '../../src/mailbox/sync/uid-mark.js';

describe('the mark a folder sync leaves for the next pass (uid_next_seen)', () => {
  it('passes every listed UID once all are settled, and the UIDNEXT the SELECT answered', () => {
    expect(nextUidMark({ from: 5, uidNextAtSelect: 9, listed: [5, 6, 8], settled: new Set([5, 6, 8]) })).toBe(
      9,
    );
  });

  it('passes mail listed by the SEARCH beyond the SELECT’s UIDNEXT (appended in between)', () => {
    expect(nextUidMark({ from: 5, uidNextAtSelect: 6, listed: [5, 6, 7], settled: new Set([5, 6, 7]) })).toBe(
      8,
    );
  });

  it('stays at the first listed UID that was not filed, so the next pass files it', () => {
    expect(
      nextUidMark({ from: 5, uidNextAtSelect: 14, listed: [5, 6, 7, 8], settled: new Set([5, 7, 8]) }),
    ).toBe(6);
  });

  it('never moves past mail no SEARCH listed, however far the live UIDNEXT has run', () => {
    // The pass listed nothing new: the next starts where this one did.
    expect(nextUidMark({ from: 6, uidNextAtSelect: 6, listed: [], settled: new Set() })).toBe(6);
  });

  it('keeps the mark when the server does not answer UIDNEXT and nothing was listed', () => {
    expect(nextUidMark({ from: 3, uidNextAtSelect: undefined, listed: [], settled: new Set() })).toBe(3);
  });

  it('never goes back below where the pass started', () => {
    expect(nextUidMark({ from: 10, uidNextAtSelect: 4, listed: [], settled: new Set() })).toBe(10);
  });
});
