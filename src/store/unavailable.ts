/**
 * SQLite result codes (with their extended forms, e.g. SQLITE_IOERR_WRITE, SQLITE_BUSY_TIMEOUT)
 * that say the database cannot take the work now, not that the work is wrong: a full disk, an
 * I/O error, a lock held past busy_timeout, a file that cannot be opened or written.
 */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|CANTOPEN|READONLY)(_|$)/;

/** Whether a store call failed because the storage is unavailable (worth retrying later). */
export function isStorageUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && UNAVAILABLE.test(code);
}
