import { sql } from 'kysely';
import type { Dialect } from '../dialect.js';
import { searchWordsText, textQuery } from './text-search.js';

export const postgresDialect: Dialect = {
  fullTextMatch(words) {
    // Words made by FTS5's tokenizer on both sides (text-search.ts): PostgreSQL only matches.
    const query = textQuery(words);
    if (query === undefined) return sql<boolean>`false`;
    const whole = query.whole.map(({ word, prefix }) =>
      prefix
        ? sql` AND EXISTS (SELECT 1 FROM unnest(mailroom_search_whole(words)) AS w WHERE starts_with(w, ${word}))`
        : sql` AND ${word} = ANY(mailroom_search_whole(words))`,
    );
    // The GIN index is on this expression (migration 031): written the same, the planner uses it.
    return sql<boolean>`id IN (SELECT rowid FROM messages_fts WHERE mailroom_search_tokens(words) @@ CAST(${query.tokens} AS tsquery)${sql.join(whole, sql``)})`;
  },
  // The same three texts FTS5 is given, made into its words once, here: no trigger, no parser.
  searchIndexRow: (id, { subject, addresses, body }) => ({
    rowid: id,
    words: searchWordsText(`${subject} ${addresses} ${body}`),
  }),
  likeIgnoringCase: 'ILIKE',
  rowLocks: true,
  clockPlusMs: `to_char((statement_timestamp() + ?::bigint * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  skipLocked: 'FOR UPDATE SKIP LOCKED',
  fromAsyncCommit: `FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
  jsonElements: (expr, alias) => `json_array_elements_text((${expr})::json) AS ${alias}(value)`,
};
