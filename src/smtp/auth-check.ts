export type DnsResolver = (name: string, rrtype: string) => Promise<unknown>;

export interface AuthResults {
  spf: string;
  dkim: { domain: string; result: string }[];
  dmarc: { result: string; policy: string | null; domain: string | null };
  /** The Authentication-Results header mailauth composed. */
  header: string;
}

/** SPF, DKIM and DMARC of an inbound message (mailauth). */
export async function checkAuthentication(
  raw: Buffer,
  session: { ip: string; helo: string; sender: string; mta: string },
  resolver?: DnsResolver,
): Promise<{ results: AuthResults }> {
  // Loaded with the first message (a server that takes none never loads it): mailauth and what it
  // brings were ~0.4 CPU-s of every start, `mailroom` command and thread.
  const { authenticate } = await import('mailauth');
  const outcome = await authenticate(raw, {
    ip: session.ip,
    helo: session.helo,
    sender: session.sender,
    mta: session.mta,
    disableArc: true,
    disableBimi: true,
    ...(resolver ? { resolver: resolver as never } : {}),
  });
  const dmarc = outcome.dmarc as { status?: { result?: string }; policy?: string; domain?: string } | false;
  const results: AuthResults = {
    spf: outcome.spf ? ((outcome.spf as { status?: { result?: string } }).status?.result ?? 'none') : 'none',
    dkim: (outcome.dkim?.results ?? [])
      .map((r) => ({
        domain: (r as { signingDomain?: string }).signingDomain ?? '',
        result: (r as { status?: { result?: string } }).status?.result ?? 'none',
      }))
      // mailauth reports an unsigned message as one result 'none' with no domain: no signatures.
      .filter((r) => r.domain !== '' || r.result !== 'none'),
    dmarc: {
      result: dmarc ? (dmarc.status?.result ?? 'none') : 'none',
      policy: dmarc ? (dmarc.policy ?? null) : null,
      domain: dmarc ? (dmarc.domain ?? null) : null,
    },
    header: outcome.headers.replace(/\r?\n$/, ''),
  };
  return { results };
}
