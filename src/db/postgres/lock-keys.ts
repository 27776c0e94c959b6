// PostgreSQL's advisory lock keys, apart from the modules that load the driver: a SQLite server
// names them (the store's shared code) without loading pg.

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
