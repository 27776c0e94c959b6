import type { Db } from '../db/connection.js';
import { MessageStore } from './messages.js';
import { searchFieldsOfStored } from './search-fields.js';

/** Set by migrations/postgres/010: the highest message id whose index row predates it. */
const MARK = 'search_rebuild_through';
const BATCH = 500;

/**
 * Rewrites the full-text rows of messages indexed before PostgreSQL's migration 010, the way
 * ingest writes them now (Dialect.searchIndexRow), newest first. Each batch is one transaction
 * that also lowers the mark, so a start that stops half way goes on where it stopped; two nodes
 * starting together write the same rows twice, harmlessly. Answers how many it rewrote (0 on
 * SQLite, and on every start after the one that finished).
 */
export async function rebuildOldSearchRows(db: Db): Promise<number> {
  const messages = new MessageStore(db);
  let done = 0;
  for (;;) {
    const mark = await db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', MARK));
    if (!mark) return done;
    const batch = await db.all(
      db.kysely
        .selectFrom('messages')
        .select([
          'id',
          'subject',
          'from_name',
          'from_address',
          'to_addrs',
          'cc_addrs',
          'bcc_addrs',
          'source_id',
        ])
        .where('id', '<=', Number(mark.value))
        .orderBy('id', 'desc')
        .limit(BATCH),
    );
    const next = batch.length < BATCH ? 0 : batch[batch.length - 1]!.id - 1;
    const fields = await searchFieldsOfStored(db, batch);
    await db.transaction(async () => {
      await messages.reindex(batch.map((m, i) => ({ id: m.id, fields: fields[i]! })));
      await db.run(
        next > 0
          ? db.kysely
              .updateTable('settings')
              .set({ value: String(next) })
              .where('key', '=', MARK)
          : db.kysely.deleteFrom('settings').where('key', '=', MARK),
      );
    });
    done += batch.length;
  }
}
