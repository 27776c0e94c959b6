import { sql } from 'kysely';
import type { Dialect } from '../dialect.js';

export const postgresDialect: Dialect = {
  fullTextMatch(words) {
    // `mailroom_search` is the text search configuration of migrations/postgres/001_init.sql;
    // `:*` makes the last word a prefix (websearch_to_tsquery has no prefix match).
    const query = words.map((w, i) => `'${w}'${i === words.length - 1 ? ':*' : ''}`).join(' & ');
    return sql<boolean>`id IN (SELECT rowid FROM messages_fts WHERE document @@ to_tsquery('mailroom_search', ${query}))`;
  },
  likeIgnoringCase: 'ILIKE',
  rowLocks: true,
  jsonElements: (expr, alias) => `json_array_elements_text((${expr})::json) AS ${alias}(value)`,
};
