import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresDb } from '../../src/db/postgres/db.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { ThreadStore } from '../../src/store/threads.js';
import type { ThreadRow } from '../../src/store/threads.js';
import { testPostgres } from '../helpers/test-postgres.js';

// A group commit's subject look-ups are read for the whole batch in one statement
// (src/store/subject-lookups.ts): whatever the batch does in between, each look-up must answer
// what its own statement would have answered at that point of the transaction.
describe('batched subject look-ups on PostgreSQL', () => {
  let db: PostgresDb;
  let threads: ThreadStore;
  let inboxId: number;
  beforeAll(async () => {
    db = await openPostgres(await (await testPostgres()).createDatabase());
    threads = new ThreadStore(db);
    const user = await db.insert('users', { name: 'lookups', created_at: 'now' });
    inboxId = (
      await db.insert('inboxes', {
        address: 'lookups@mailroom.test',
        user_id: user.lastInsertRowid,
        kind: 'local',
        display_name: '',
        created_at: 'now',
      })
    ).lastInsertRowid;
  });
  afterAll(async () => db?.close());

  let next = 0;
  const thread = (subjectKey: string, lastUid: number, lastDate: string): ThreadRow => ({
    id: `thr_lookup_${++next}`,
    inbox_id: inboxId,
    subject: subjectKey,
    subject_key: subjectKey,
    last_uid: lastUid,
    last_date: lastDate,
    created_at: 'now',
  });
  /** What one statement answers (the path taken without batching). */
  const direct = async (subjectKey: string, since: string) =>
    (
      await db.rawAll<{ id: string }>(
        'SELECT id FROM threads WHERE inbox_id = ? AND subject_key = ? AND last_date >= ? ORDER BY last_uid DESC LIMIT 5',
        inboxId,
        subjectKey,
        since,
      )
    ).map((t) => t.id);
  const ids = (rows: ThreadRow[]) => rows.map((t) => t.id);

  it('answers as a statement would, through threads created and moved forward in the batch', async () => {
    for (let i = 1; i <= 7; i++) await threads.create(thread('report', i, `2026-01-0${i}`));
    await threads.create(thread('other', 8, '2026-01-08'));
    await db.transaction(async () => {
      threads.expectSubject(inboxId, 'report', '2026-01-02');
      threads.expectSubject(inboxId, 'fresh', '2025-12-01');
      // Several windows, each as its own statement answers it.
      for (const since of ['2026-01-02', '2026-01-04', '2026-01-07', '2026-02-01']) {
        expect(ids(await threads.recentBySubject(inboxId, 'report', since))).toEqual(
          await direct('report', since),
        );
      }
      expect(await threads.recentBySubject(inboxId, 'fresh', '2025-12-01')).toEqual([]);
      // A thread the batch makes, and an old one a message of the batch moves forward.
      await threads.create(thread('fresh', 20, '2026-01-20'));
      await threads.touch('thr_lookup_2', 21, '2026-01-21');
      expect(ids(await threads.recentBySubject(inboxId, 'fresh', '2025-12-01'))).toEqual(
        await direct('fresh', '2025-12-01'),
      );
      expect(ids(await threads.recentBySubject(inboxId, 'report', '2026-01-02'))).toEqual(
        await direct('report', '2026-01-02'),
      );
      expect(ids(await threads.recentBySubject(inboxId, 'report', '2026-01-02'))[0]).toBe('thr_lookup_2');
    });
  });

  it('reads every expected subject in one statement, and asks the database past 50 candidates', async () => {
    for (let i = 0; i < 60; i++) await threads.create(thread('busy', 100 + i, '2026-03-01'));
    let reads = 0;
    const rawAll = db.rawAll.bind(db);
    db.rawAll = ((...args: Parameters<typeof rawAll>) => {
      if (/threads/i.test(args[0])) reads++;
      return rawAll(...args);
    }) as typeof rawAll;
    try {
      await db.transaction(async () => {
        for (const key of ['a', 'b', 'c', 'report', 'busy'])
          threads.expectSubject(inboxId, key, '2026-01-01');
        for (const key of ['a', 'b', 'c', 'report'])
          await threads.recentBySubject(inboxId, key, '2026-01-01');
        expect(reads).toBe(1);
        const busy = await threads.recentBySubject(inboxId, 'busy', '2026-01-01');
        expect(ids(busy)).toEqual(await direct('busy', '2026-01-01'));
        expect(ids(busy)).toHaveLength(5);
      });
    } finally {
      db.rawAll = rawAll;
    }
  });
});
