/** An MX lookup: `dns.promises.resolveMx` by default; tests answer with a local capture server. */
export type MxResolver = (domain: string) => Promise<{ exchange: string; priority: number }[]>;

/** Tuning of outbound delivery; every field has a production default (contract 8). */
export interface OutboundOptions {
  mxResolver?: MxResolver;
  /** Port of the receiving servers in `direct` mode (25). */
  directPort?: number;
  /** First retry delay after a temporary failure (5 min); it doubles each time... */
  retryBaseMs?: number;
  /** ...up to this (4 h)... */
  retryMaxMs?: number;
  /** ...until the message has waited this long (5 days), when it fails for good. */
  giveUpAfterMs?: number;
  /** Longest sleep between looks at the queue when nothing wakes the worker sooner (30 s). */
  pollMs?: number;
  /** Connect, greeting and socket timeouts of one SMTP attempt (60 s). */
  smtpTimeoutMs?: number;
  /**
   * How long a claimed delivery is this node's (10 min): longer than an attempt can take (every
   * MX host at smtpTimeoutMs), as a node that dies holding it delays its next attempt this long.
   */
  leaseMs?: number;
  /** Pooled connections kept open to the relay, also the number of attempts in flight (8). */
  relayConnections?: number;
}

export type ResolvedOutboundOptions = Required<Omit<OutboundOptions, 'mxResolver'>> &
  Pick<OutboundOptions, 'mxResolver'>;

const MINUTE = 60_000;

export function resolveOutboundOptions(options: OutboundOptions = {}): ResolvedOutboundOptions {
  return {
    mxResolver: options.mxResolver,
    directPort: options.directPort ?? 25,
    retryBaseMs: options.retryBaseMs ?? 5 * MINUTE,
    retryMaxMs: options.retryMaxMs ?? 240 * MINUTE,
    giveUpAfterMs: options.giveUpAfterMs ?? 5 * 24 * 60 * MINUTE,
    pollMs: options.pollMs ?? 30_000,
    smtpTimeoutMs: options.smtpTimeoutMs ?? MINUTE,
    relayConnections: options.relayConnections ?? 8,
    leaseMs: options.leaseMs ?? 10 * MINUTE,
  };
}
