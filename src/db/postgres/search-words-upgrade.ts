import type pg from 'pg';
import { inTransaction, onceWhenDue, withClient } from './one-client.js';
import type { Queryable } from './one-client.js';
import { SEARCH_WORDS_LOCK_KEY } from './lock-keys.js';

/**
 * Migration 029 on PostgreSQL (migrations/postgres/029_search_words_text.sql): messages_fts rows
 * written before it hold a `document` tsvector; the layout since keeps `words`, the same words as
 * text (since migration 031 with the longer ones cut, mailroom_search_layout), under a GIN index.
 * Marked by this setting until done.
 */
export const SEARCH_WORDS_MARK = 'search_words';
/** Rows a batch converts: one UPDATE of words already made (no tokenizing), ~1 MB of text. */
const BATCH_ROWS = 5000;

export interface SearchWordsLog {
  info(message: string): void;
}

const marked = async (client: pg.PoolClient | pg.Client) =>
  (await client.query('SELECT 1 FROM settings WHERE key = $1', [SEARCH_WORDS_MARK])).rowCount === 1;

/**
 * Rewrites the rows written before migration 029, oldest first, in batches of BATCH_ROWS (the
 * GIN index on the words takes them as they come), each one transaction (the words are the
 * document's own lexemes: nothing is tokenized again), with a line in the log after each. A start stopped half way goes on with the rows still without words;
 * nodes starting together take turns batch by batch. Then finishSearchWords. Answers how many
 * rows it converted (0 once done).
 */
export async function convertSearchWords(
  db: Queryable,
  lockKey: bigint,
  log: SearchWordsLog,
): Promise<number> {
  const done = await withClient(db, async (client) => {
    if (!(await marked(client))) return 0;
    const left = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM messages_fts WHERE words IS NULL',
    );
    const total = Number(left.rows[0]!.n);
    if (total === 0) return 0;
    log.info(
      `converting the full-text rows of ${total} message(s) to words as text (migration 029); a stopped start goes on where it ended`,
    );
    let converted = 0;
    let after = 0;
    for (;;) {
      const batch = await inTransaction(client, async () => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [SEARCH_WORDS_LOCK_KEY.toString()]);
        return client.query<{ rowid: string }>(
          `UPDATE messages_fts SET words = mailroom_search_layout(array_to_string(tsvector_to_array(document), ' ')), document = NULL
            WHERE rowid IN (SELECT rowid FROM messages_fts WHERE rowid > $1 AND words IS NULL ORDER BY rowid LIMIT $2)
            RETURNING rowid`,
          [after, BATCH_ROWS],
        );
      });
      if (batch.rowCount === 0) break;
      after = Math.max(...batch.rows.map((r) => Number(r.rowid)));
      converted += batch.rowCount ?? 0;
      log.info(`converted the full-text rows of ${converted} of ${total} message(s)`);
    }
    return converted;
  });
  await finishSearchWords(db, lockKey);
  return done;
}

/**
 * Once no row is left without words: drops `document` and its index, holding the migration lock
 * (`lockKey`) so nodes starting together take this step once. A database whose table is empty
 * takes it with its migrations. Answers whether it took it.
 */
export async function finishSearchWords(db: Queryable, lockKey: bigint): Promise<boolean> {
  return onceWhenDue(
    db,
    lockKey,
    async (client) =>
      (await marked(client)) &&
      (await client.query('SELECT 1 FROM messages_fts WHERE words IS NULL LIMIT 1')).rowCount === 0,
    async (client) => {
      await client.query('ALTER TABLE messages_fts DROP COLUMN IF EXISTS document');
      await client.query('ALTER TABLE messages_fts ALTER COLUMN words SET NOT NULL');
      await client.query('DELETE FROM settings WHERE key = $1', [SEARCH_WORDS_MARK]);
    },
  );
}
