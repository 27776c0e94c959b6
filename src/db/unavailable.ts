/**
 * The database cannot be reached now (the server is down, the connection was lost): the work was
 * not done and may be retried. An engine throws it for what its driver reports as a lost
 * connection; callers map it as they map a full disk (API 503 `unavailable`, SMTP 451 4.3.0).
 */
export class DatabaseUnavailable extends Error {
  readonly code = 'DATABASE_UNAVAILABLE';

  constructor(
    readonly database: string,
    cause: unknown,
  ) {
    super(
      `the database ${database} is unavailable: ${(cause as Error | undefined)?.message ?? String(cause)}`,
      {
        cause,
      },
    );
    this.name = 'DatabaseUnavailable';
  }
}
