import { sql } from 'kysely';
import type { Dialect } from './dialect.js';

export const sqliteDialect: Dialect = {
  fullTextMatch(words) {
    // FTS5: quoted words are matched as words, whatever they contain; `*` makes the last a prefix.
    const match = words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' ');
    return sql<boolean>`id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ${match})`;
  },
  // FTS5 tokenizes the three texts itself.
  searchIndexRow: (id, { subject, addresses, body }) => ({ rowid: id, subject, addresses, body }),
  likeIgnoringCase: 'LIKE',
  rowLocks: false,
  jsonElements: (expr, alias) => `json_each(${expr}) ${alias}`,
};
