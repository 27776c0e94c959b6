import type { RawBuilder } from 'kysely';

/** What the full-text index holds for one message: its subject, its addresses, its text. */
export interface SearchFields {
  subject: string;
  addresses: string;
  body: string;
}

/**
 * What truly differs between the engines' SQL (ARCHITECTURE rule 8), and nothing else: every
 * other query is written once, in the store, and runs on both.
 */
export interface Dialect {
  /**
   * A condition on `messages.id`: the message's indexed text (subject, addresses, body) holds
   * every word, the last one as a prefix. `words` are letters and digits only.
   */
  fullTextMatch(words: string[]): RawBuilder<boolean>;
  /** The row of `messages_fts` (column: value) that indexes message `id` for fullTextMatch. */
  searchIndexRow(id: number, fields: SearchFields): Record<string, unknown>;
  /** LIKE that ignores ASCII case, as SQLite's LIKE does and PostgreSQL's ILIKE. */
  readonly likeIgnoringCase: 'LIKE' | 'ILIKE';
  /**
   * Whether `SELECT ... FOR UPDATE` is needed to hold a row until commit: on PostgreSQL; SQLite
   * has no row locks (its transaction holds the whole database) and no such syntax.
   */
  readonly rowLocks: boolean;
  /**
   * The database's clock plus `?` milliseconds (one parameter), as the ISO text every timestamp
   * column holds: leases and heartbeats that several nodes compare are read off one clock.
   */
  readonly clockPlusMs: string;
  /**
   * What `SELECT ... LIMIT n` ends with so that rows another transaction holds are passed over
   * instead of waited for (PostgreSQL's FOR UPDATE SKIP LOCKED); empty on SQLite, where one
   * writer holds the whole file.
   */
  readonly skipLocked: string;
  /**
   * `FROM <item>` for a one-statement write whose loss in a crash costs nothing (a rate count):
   * on PostgreSQL its autocommit transaction then commits without waiting for the WAL flush
   * (synchronous_commit off for it alone); empty on SQLite, whose commit waits for no disk in WAL
   * mode at synchronous NORMAL.
   */
  readonly fromAsyncCommit: string;
  /** A FROM item: the elements of the JSON array (of strings) in `expr`, as rows of `alias.value`. */
  jsonElements(expr: string, alias: string): string;
}
