import { sql } from 'kysely';
import type { Dialect } from './dialect.js';
import { searchWordsInOrder } from './search-words.js';

export const sqliteDialect: Dialect = {
  fullTextMatch(words) {
    // Each word as FTS5's tokenizer makes it (what the index holds), every one required, the last
    // a prefix: as on PostgreSQL. A word the tokenizer splits in two is two words, not a phrase,
    // which an index without positions (detail = column, migration 017) cannot answer.
    const tokens = words.flatMap((word) => searchWordsInOrder(word));
    if (tokens.length === 0) return sql<boolean>`0`;
    const match = tokens.map((t, i) => `"${t}"${i === tokens.length - 1 ? '*' : ''}`).join(' ');
    return sql<boolean>`id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ${match})`;
  },
  // FTS5 tokenizes the three texts itself.
  searchIndexRow: (id, { subject, addresses, body }) => ({ rowid: id, subject, addresses, body }),
  likeIgnoringCase: 'LIKE',
  rowLocks: false,
  clockPlusMs: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', (? / 1000.0) || ' seconds')`,
  skipLocked: '',
  fromAsyncCommit: '',
  jsonElements: (expr, alias) => `json_each(${expr}) ${alias}`,
};
