import type { Db } from '../db/connection.js';
import type { ThreadRow } from './threads.js';

/**
 * A group commit's subject look-ups (contract 4's threading by subject), read for the whole batch
 * in one statement on an engine where each statement is a round trip in the chain every message
 * of the batch waits on (PostgreSQL). The batch says up front which (inbox, subject) pairs its
 * messages will look up (`expect`); the first look-up reads them all; the threads the transaction
 * creates or moves forward afterwards are kept in step here, so later look-ups of the batch see
 * them as a statement would. Another transaction's thread committed in between is not seen: the
 * same as when the two commit at the same time, one thread more for that subject, never a lost
 * message.
 */
export class SubjectLookups {
  private readonly wanted = new Map<string, Wanted>();
  /** Per wanted key, the candidates read so far (newest first), or TOO_MANY to ask the database. */
  private readonly found = new Map<string, ThreadRow[] | typeof TOO_MANY>();
  private readonly byId = new Map<string, ThreadRow>();

  constructor(private readonly db: Db) {}

  expect(inboxId: number, subjectKey: string, since: string): void {
    const key = keyOf(inboxId, subjectKey);
    const known = this.wanted.get(key);
    if (known && known.since <= since) return;
    this.wanted.set(key, { inboxId, subjectKey, since });
    this.found.delete(key);
  }

  /**
   * The threads a statement would answer (last_date >= since, newest last_uid first, at most
   * `limit`), or undefined when this key was not expected or has too many candidates to keep.
   */
  async recent(
    inboxId: number,
    subjectKey: string,
    since: string,
    limit: number,
  ): Promise<ThreadRow[] | undefined> {
    const key = keyOf(inboxId, subjectKey);
    const wanted = this.wanted.get(key);
    if (!wanted || since < wanted.since) return undefined;
    if (!this.found.has(key)) await this.readWanted();
    const rows = this.found.get(key);
    if (rows === undefined || rows === TOO_MANY) return undefined;
    return rows
      .filter((row) => row.last_date >= since)
      .sort((a, b) => b.last_uid - a.last_uid)
      .slice(0, limit);
  }

  /** A thread the transaction created: a later look-up of its subject sees it. */
  created(row: ThreadRow): void {
    const rows = this.found.get(keyOf(row.inbox_id, row.subject_key));
    if (rows === undefined || rows === TOO_MANY) return;
    const kept = { ...row };
    rows.push(kept);
    this.byId.set(kept.id, kept);
  }

  /** As ThreadStore.touch moves it in the database: last_uid and last_date only forward. */
  touched(id: string, uid: number, date: string): void {
    const row = this.byId.get(id);
    if (!row) return;
    row.last_uid = Math.max(row.last_uid, uid);
    if (date > row.last_date) row.last_date = date;
  }

  /** Every expected key not read yet, in one statement. */
  private async readWanted(): Promise<void> {
    const keys = [...this.wanted.entries()].filter(([key]) => !this.found.has(key));
    const pairs = keys.map(() => '(?, ?)').join(', ');
    const since = keys.reduce((min, [, w]) => (w.since < min ? w.since : min), keys[0]![1].since);
    const read = () =>
      this.db.rawAll<ThreadRow & { rank: number }>(
        `SELECT * FROM (
           SELECT t.*, row_number() OVER (PARTITION BY inbox_id, subject_key ORDER BY last_uid DESC) AS rank
           FROM threads t WHERE (inbox_id, subject_key) IN (${pairs}) AND last_date >= ?
         ) AS ranked WHERE rank <= ?`,
        ...keys.flatMap(([, w]) => [w.inboxId, w.subjectKey]),
        since,
        KEEP_PER_KEY + 1,
      );
    // Threads this transaction queued and has not written yet would be missed: write them first.
    const couldSee = (table: string, row: Record<string, unknown>) =>
      table === 'threads' && this.wanted.has(keyOf(row.inbox_id as number, row.subject_key as string));
    const rows = await this.db.readPast(couldSee, read);
    for (const [key] of keys) this.found.set(key, []);
    for (const { rank, ...row } of rows) {
      const key = keyOf(row.inbox_id, row.subject_key);
      const list = this.found.get(key);
      if (list === TOO_MANY || list === undefined) continue;
      if (rank > KEEP_PER_KEY) {
        for (const kept of list) this.byId.delete(kept.id);
        this.found.set(key, TOO_MANY);
        continue;
      }
      list.push(row);
      this.byId.set(row.id, row);
    }
  }
}

interface Wanted {
  inboxId: number;
  subjectKey: string;
  since: string;
}

/** Candidates kept per subject; past that the look-up goes to the database as before. */
const KEEP_PER_KEY = 50;
const TOO_MANY = Symbol('too many');

const keyOf = (inboxId: number, subjectKey: string) => `${inboxId}\u0000${subjectKey}`;
