/** What one pass over a folder's new mail saw and did, for its new high-water mark. */
export interface NewMailPass {
  /** The UID the pass looked for new mail from (the stored mark, or 1 on a first sync or resync). */
  from: number;
  /** UIDNEXT as the pass's SELECT answered it (undefined when the server did not say). */
  uidNextAtSelect: number | undefined;
  /** The UIDs at or above `from` the pass's SEARCH listed. */
  listed: number[];
  /**
   * Of `listed`, those now settled: filed, adopted, linked already, or left out of the FETCH's
   * answer (gone from the server since the SEARCH). A listed UID the FETCH answered without its
   * source is not: the next pass asks for it again.
   */
  settled: Set<number>;
}

/**
 * The folder's new `uid_next_seen`: the next pass asks for new mail from here, and nothing below
 * it is ever asked for again. It passes only UIDs the server has told about at a point after
 * they were allocated: below the SELECT's UIDNEXT or below a UID the SEARCH listed (UIDs are
 * allocated in ascending order), a UID the SEARCH left out does not exist; a listed UID counts
 * once settled. Never a UIDNEXT learnt later (imapflow raises the selected mailbox's `uidNext`
 * for every UID any FETCH answer carries): mail appended after the SEARCH was never asked for.
 */
export function nextUidMark(pass: NewMailPass): number {
  const { from, uidNextAtSelect, listed, settled } = pass;
  let mark = Math.max(from, uidNextAtSelect ?? 0, ...listed.map((uid) => uid + 1));
  for (const uid of listed) if (!settled.has(uid) && uid < mark) mark = uid;
  return mark;
}
