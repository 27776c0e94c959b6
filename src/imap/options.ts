/** Timing of the IMAP sync; tests shorten every one of them. */
export interface ImapSyncOptions {
  /** How often every folder is compared, and how long an IDLE on INBOX lasts before a check anyway. */
  pollMs: number;
  /** Reconnect waits: doubling from the first to the last. */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** Connecting, greeting and login must finish within this. */
  connectTimeoutMs: number;
  /**
   * How often the list of connected inboxes is re-read (inboxes added by the CLI), and the
   * leases of the inboxes this node syncs renewed.
   */
  watchMs: number;
  /**
   * How long an inbox's sync stays this node's without a renewal: a node that dies holding it
   * is replaced within leaseMs + watchMs (20 s by default; contract 11 says 30).
   */
  leaseMs: number;
  /** Messages downloaded per FETCH during a sync. */
  batchSize: number;
  /** How often INBOX is checked when IDLE brings nothing (default: MAILROOM_IMAP_CHECK_SECONDS). */
  checkMs?: number;
}

export const DEFAULT_IMAP_OPTIONS: ImapSyncOptions = {
  pollMs: 60_000,
  backoffMinMs: 2_000,
  backoffMaxMs: 5 * 60_000,
  connectTimeoutMs: 20_000,
  watchMs: 5_000,
  leaseMs: 15_000,
  batchSize: 200,
};

export function resolveImapOptions(options: Partial<ImapSyncOptions> = {}): ImapSyncOptions {
  return { ...DEFAULT_IMAP_OPTIONS, ...options };
}

/** The wait before reconnect attempt `attempt` (0-based), with up to 20 % jitter. */
export function backoffMs(options: ImapSyncOptions, attempt: number): number {
  const base = Math.min(options.backoffMaxMs, options.backoffMinMs * 2 ** Math.min(attempt, 20));
  return Math.round(base * (1 + Math.random() * 0.2));
}
