// PostgreSQL's advisory lock keys, in one place so no two collide, and apart from the modules
// that load the driver: the store's code shared with SQLite names them without loading pg.

/** The transaction-level advisory lock a migration run holds: "mailroom" in ASCII. */
export const MIGRATION_LOCK_KEY = 0x6d61696c726f6f6dn;

/**
 * Held from an event's insert to its commit: `events.seq` is handed out at insert, so without it
 * a transaction could commit seq 11 before another commits seq 10, and a reader that has seen 11
 * would never see 10. EventStore.append inserts at the end of its transaction (writeAtCommit), so
 * this is the last lock any transaction takes: held for the shortest time, and never held while
 * waiting for a row lock (which could deadlock). "events" in ASCII.
 */
export const EVENT_APPEND_LOCK_KEY = '435459072627';

/** The first start's advisory lock: "first" in ASCII. */
export const FIRST_START_LOCK_KEY = '439855772532';

/** The transaction-level lock a batch of the compact layout's conversion holds: "mailcomp" in ASCII. */
export const COMPACT_CONVERSION_LOCK_KEY = 0x6d61696c636f6d70n;

/** The transaction-level lock a batch of the search words' conversion holds: "mailword" in ASCII. */
export const SEARCH_WORDS_LOCK_KEY = 0x6d61696c776f7264n;
