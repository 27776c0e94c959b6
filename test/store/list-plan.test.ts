import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Compilable } from 'kysely';
import type { Db } from '../../src/db/connection.js';
import type { MessageFilter } from '../../src/store/messages.js';
import { inProcessInbox } from '../helpers/in-process.js';
import type { InProcess } from '../helpers/in-process.js';

/** The statement `MessageStore.list` sends for `filter`, and its parameters. */
async function listStatement(db: Db, list: () => Promise<unknown>) {
  const all = db.all.bind(db);
  let sent: { sql: string; parameters: readonly unknown[] } | undefined;
  db.all = <R>(query: Compilable<R>) => {
    sent ??= query.compile();
    return all(query);
  };
  try {
    await list();
  } finally {
    db.all = all;
  }
  return sent!;
}

/** The indexes the engine's plan reads `messages` through. */
async function indexesRead(db: Db, sql: string, parameters: readonly unknown[]): Promise<string[]> {
  if (db.engine === 'sqlite') {
    const plan = await db.rawAll<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...parameters);
    return plan.flatMap(
      (row) => /^(?:SEARCH|SCAN) messages USING (?:COVERING )?INDEX (\w+)/.exec(row.detail)?.[1] ?? [],
    );
  }
  // No sequential scan, so that the tiny table of a test is read through an index as a large one is.
  return await db.transaction(async () => {
    await db.rawRun('SET LOCAL enable_seqscan = off');
    const plan = await db.rawAll<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, ...parameters);
    return plan.flatMap((row) => / using (\w+) on messages\b/i.exec(row['QUERY PLAN'])?.[1] ?? []);
  });
}

// A page of a small folder (Drafts, Junk) in an inbox of 100,000 messages must not walk the inbox.
describe("a page of a folder reads the folder's index", () => {
  let box: InProcess;
  beforeEach(async () => {
    box = await inProcessInbox('plan@mailroom.test');
    await box.deliver({ from: 'a@example.com', to: 'plan@mailroom.test', subject: 'one', text: 'hello' });
  });
  afterEach(async () => box?.close());

  const filters: [string, Partial<MessageFilter>][] = [
    ['first page', {}],
    ['unread', { unread: true }],
    ['read', { unread: false }],
    ['with attachments', { hasAttachments: true }],
    ['since', { since: '2026-01-01T00:00:00.000Z' }],
    ['from a cursor', { beforeUid: 10 }],
  ];
  it.each(filters)('%s', async (_, filter) => {
    const { deps, inbox } = box;
    const drafts = (await deps.store.folders.find(inbox.id, 'Drafts'))!;
    const { db } = deps.store;
    const { sql, parameters } = await listStatement(db, () =>
      deps.store.messages.list({ inboxId: inbox.id, folderId: drafts.id, limit: 51, ...filter }),
    );
    const indexes = await indexesRead(db, sql, parameters);
    expect(indexes.length).toBeGreaterThan(0);
    for (const index of indexes) expect(index).toMatch(/^messages_folder_/);
  });
});
