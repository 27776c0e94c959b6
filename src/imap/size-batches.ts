/**
 * A FETCH of message sources holds all of them in memory at once (imapflow's fetchAll, then the
 * parse): batches stop at `maxCount` messages or `maxBytes`, whichever comes first, and a
 * message larger than `maxBytes` goes alone. Order is kept.
 */
export function batchesBySize(
  uids: number[],
  sizeOf: (uid: number) => number,
  maxCount: number,
  maxBytes: number,
): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  for (const uid of uids) {
    const size = sizeOf(uid);
    if (batch.length > 0 && (batch.length >= maxCount || bytes + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(uid);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** `1,2,3,7,9,10` as the IMAP sequence set `1:3,7,9:10`: short enough for any server's line limit. */
export function uidSet(uids: number[]): string {
  const sorted = [...uids].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}:${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
