/** Socket errors node reports when the server is gone or cannot be reached. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that say the server cannot take the work now rather than that the work is wrong:
 * class 08 (connection exception), 57P01..57P03 (admin or crash shutdown, cannot connect now:
 * the server is starting or recovering), 53300 (too many connections), and the lock classes a
 * retry resolves (40001 serialization failure, 40P01 deadlock, 55P03 lock not available).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|40001|40P01|55P03)$/;

/** pg's own words for a connection it lost or could not make in time. */
const DRIVER_MESSAGES =
  /Connection terminated|connection error|Connection is closed|timeout exceeded when trying to connect|not queryable/i;

/** Whether a pg error means PostgreSQL is unavailable now (worth retrying later). */
export function isPostgresUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown } | null | undefined;
  if (!e) return false;
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || UNAVAILABLE_STATES.test(e.code)))
    return true;
  // An AggregateError (several addresses tried, all refused) carries the codes in `errors`.
  if (Array.isArray(e.errors) && e.errors.some(isPostgresUnavailable)) return true;
  return typeof e.message === 'string' && DRIVER_MESSAGES.test(e.message);
}
