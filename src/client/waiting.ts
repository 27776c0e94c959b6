/**
 * What waiting for an email means, for the typed client and the in-process helper alike: the
 * filters, the default patience, and the error a wait that runs out rejects with. No I/O here,
 * so the client can carry it to any runtime.
 */

export interface WaitForEmailOptions {
  /** The inbox to watch (its address). */
  account: string;
  /** The folder to watch; INBOX when omitted. */
  folder?: string;
  /** Filters, as `GET /emails` takes them: sender, recipient and subject contain these. */
  from?: string;
  to?: string;
  subject?: string;
  /** Full-text search over subject, addresses and body. */
  q?: string;
  /**
   * Only mail received from then on.
   * Without it, matching mail already in the folder counts too: a mail sent just before the wait
   * started is found, not missed.
   */
  since?: Date | string;
  /** How long to wait, in milliseconds (default 4,000: under the 5 s a test runner gives a test). */
  timeoutMs?: number;
}

export const DEFAULT_WAIT_MS = 4_000;

/** How many of the folder's latest emails a timeout names. */
export const LATEST_SHOWN = 5;

/** What a timeout says about an email that was there. */
export interface SeenEmail {
  uid: number;
  subject: string;
  from: string;
  receivedAt: string;
}

export interface ListFilters {
  account: string;
  folder: string;
  from?: string;
  to?: string;
  subject?: string;
  q?: string;
  since?: string;
}

/** The `GET /emails` filters of a wait. */
export function waitFilters(options: WaitForEmailOptions): ListFilters {
  const { account, folder = 'INBOX', from, to, subject, q } = options;
  const since = options.since === undefined ? undefined : isoDate(options.since);
  return {
    account,
    folder,
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(subject !== undefined ? { subject } : {}),
    ...(q !== undefined ? { q } : {}),
    ...(since !== undefined ? { since } : {}),
  };
}

/** `since` as the API takes it. */
function isoDate(since: Date | string): string {
  const ms = since instanceof Date ? since.getTime() : Date.parse(since);
  if (Number.isNaN(ms)) throw new TypeError(`since must be a date, got ${JSON.stringify(String(since))}`);
  return new Date(ms).toISOString();
}

/**
 * A wait ran out. The message says what was waited for and what is in the folder, newest first,
 * marking what arrived during the wait, so a failing test shows why without a second look.
 */
export class EmailWaitTimeout extends Error {
  override readonly name = 'EmailWaitTimeout';
  readonly filters: ListFilters;
  readonly timeoutMs: number;
  /** The folder's latest emails when the wait ended, newest first. */
  readonly latest: SeenEmail[];

  constructor(filters: ListFilters, timeoutMs: number, latest: SeenEmail[], startedAt: number) {
    super(describeTimeout(filters, timeoutMs, latest, startedAt));
    this.filters = filters;
    this.timeoutMs = timeoutMs;
    this.latest = latest;
  }
}

function describeTimeout(filters: ListFilters, timeoutMs: number, latest: SeenEmail[], startedAt: number) {
  const { account, folder, ...matching } = filters;
  const wanted = Object.entries(matching).map(([name, value]) => `${name} ${JSON.stringify(value)}`);
  const what = wanted.length > 0 ? `no email with ${wanted.join(', ')}` : 'no email';
  const head = `${what} came to ${account} (${folder}) within ${timeoutMs} ms`;
  if (latest.length === 0) return `${head}; ${folder} is empty`;
  const seen = latest.map((email) => {
    const when =
      Date.parse(email.receivedAt) >= startedAt ? 'during the wait' : `before it, at ${email.receivedAt}`;
    return `uid ${email.uid} ${JSON.stringify(email.subject)} from ${email.from || '(no sender)'} (${when})`;
  });
  return `${head}; latest in ${folder}: ${seen.join('; ')}`;
}

/** The few fields a timeout shows of each email. */
export function seen(
  emails: { uid: number; subject: string; from: string; receivedAt: string }[],
): SeenEmail[] {
  return emails.map(({ uid, subject, from, receivedAt }) => ({ uid, subject, from, receivedAt }));
}
