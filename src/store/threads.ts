import type { Selectable } from 'kysely';
import type { Db } from '../db/connection.js';
import type { ThreadsTable } from '../db/schema.js';
import { SubjectLookups } from './subject-lookups.js';

export type ThreadRow = Selectable<ThreadsTable>;

export interface ThreadSummaryRow extends ThreadRow {
  message_count: number;
  unread_count: number;
}

export class ThreadStore {
  constructor(private readonly db: Db) {}

  /** Written with the rest of a group commit's new threads (Db.insertSoon). */
  async create(row: ThreadRow): Promise<void> {
    await this.db.insertSoon('threads', row);
    this.lookups()?.created(row);
  }

  /**
   * Says that this transaction will look up threads by this subject (a group commit, for each of
   * its messages): on PostgreSQL the first look-up then reads every expected one in one statement.
   */
  expectSubject(inboxId: number, subjectKey: string, since: string): void {
    this.lookups()?.expect(inboxId, subjectKey, since);
  }

  /** The transaction's batched subject look-ups, where a statement is a round trip. */
  private lookups(): SubjectLookups | undefined {
    return this.db.perTransaction(SUBJECT_LOOKUPS, () => new SubjectLookups(this.db));
  }

  /** Records a new message in the thread: last_uid and last_date only move forward. */
  async touch(id: string, uid: number, date: string): Promise<void> {
    await this.db.rawRun(
      `UPDATE threads SET last_uid = CASE WHEN last_uid > ? THEN last_uid ELSE ? END,
         last_date = CASE WHEN last_date > ? THEN last_date ELSE ? END WHERE id = ?`,
      uid,
      uid,
      date,
      date,
      id,
    );
    this.lookups()?.touched(id, uid, date);
  }

  async get(inboxId: number, id: string): Promise<ThreadRow | undefined> {
    return await this.db.first(
      this.db.kysely.selectFrom('threads').selectAll().where('inbox_id', '=', inboxId).where('id', '=', id),
    );
  }

  /** Threads of this inbox with this normalised subject whose last message is not older than `since`. */
  async recentBySubject(inboxId: number, subjectKey: string, since: string): Promise<ThreadRow[]> {
    const batched = await this.lookups()?.recent(inboxId, subjectKey, since, RECENT_LIMIT);
    if (batched) return batched;
    const query = this.db.kysely
      .selectFrom('threads')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('subject_key', '=', subjectKey)
      .where('last_date', '>=', since)
      .orderBy('last_uid', 'desc')
      .limit(RECENT_LIMIT);
    const couldSee = (table: string, row: Record<string, unknown>) =>
      table === 'threads' && row.inbox_id === inboxId && row.subject_key === subjectKey;
    return await this.db.readPast(couldSee, () => this.db.all(query));
  }

  /** Addresses seen in a thread (from, to, cc), lower-cased. */
  async participants(threadId: string): Promise<string[]> {
    // In the order they first appear (senders, then To, then Cc, oldest message first), the same
    // on both engines: DISTINCT alone leaves the order to the engine.
    const elements = (column: string) => this.db.dialect.jsonElements(`m.${column}`, 'j');
    const couldSee = (table: string, row: Record<string, unknown>) =>
      table === 'messages' && row.thread_id === threadId;
    const read = () =>
      this.db.rawAll<{ address: string }>(
        `SELECT lower(value) AS address FROM (
           SELECT from_address AS value, 0 AS part, id FROM messages WHERE thread_id = ?
           UNION ALL SELECT j.value, 1, m.id FROM messages m, ${elements('to_addrs')} WHERE m.thread_id = ?
           UNION ALL SELECT j.value, 2, m.id FROM messages m, ${elements('cc_addrs')} WHERE m.thread_id = ?
         ) AS seen WHERE value <> ''
         GROUP BY lower(value) ORDER BY min(part), min(id), lower(value)`,
        threadId,
        threadId,
        threadId,
      );
    return (await this.db.readPast(couldSee, read)).map((r) => r.address);
  }

  /** Newest first by last message; only threads that still hold a message. */
  async list(inboxId: number, beforeLastUid: number | undefined, limit: number): Promise<ThreadSummaryRow[]> {
    return (await this.db.rawAll(
      `SELECT t.*, 
           (SELECT count(*) FROM messages m WHERE m.thread_id = t.id) AS message_count,
           (SELECT count(*) FROM messages m WHERE m.thread_id = t.id AND m.seen = 0) AS unread_count
         FROM threads t
         WHERE t.inbox_id = ? AND t.last_uid < ?
           AND EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id)
         ORDER BY t.last_uid DESC LIMIT ?`,
      inboxId,
      beforeLastUid ?? Number.MAX_SAFE_INTEGER,
      limit,
    )) as ThreadSummaryRow[];
  }
}

/** Threads a subject look-up weighs, newest first. */
const RECENT_LIMIT = 5;

/** The key of a transaction's SubjectLookups (Db.perTransaction). */
const SUBJECT_LOOKUPS = {};
