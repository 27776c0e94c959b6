import { promises as dns } from 'node:dns';
import type { MxResolver } from './options.js';
import type { Outcome } from './outcome.js';
import { allRecipients } from './outcome.js';
import type { Envelope } from './smtp-send.js';
import { sendOnce } from './smtp-send.js';

export interface DirectSettings {
  port: number;
  hostname: string;
  timeoutMs: number;
  mxResolver?: MxResolver;
}

type MxAnswer = { hosts: string[] } | { outcome: Outcome['result']; reply: string };

/** MX hosts by preference; with no MX record, the domain itself (its A record, RFC 5321 5.1). */
export async function mxHosts(domain: string, resolver: MxResolver = dns.resolveMx): Promise<MxAnswer> {
  try {
    const records = await resolver(domain);
    if (records.length === 0) return { hosts: [domain] };
    const sorted = [...records].sort((a, b) => a.priority - b.priority);
    const hosts = sorted.map((r) => r.exchange.replace(/\.$/, '')).filter((h) => h !== '');
    if (hosts.length === 0) {
      return { outcome: 'permanent', reply: `556 5.1.10 ${domain} does not accept mail (null MX)` };
    }
    return { hosts };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENODATA') return { hosts: [domain] };
    if (code === 'ENOTFOUND') return { outcome: 'permanent', reply: `550 5.1.2 domain ${domain} not found` };
    return { outcome: 'temporary', reply: `451 4.4.3 MX lookup for ${domain} failed (${code ?? 'error'})` };
  }
}

/**
 * Delivery straight to the recipients' mail servers: MX hosts tried in order while they cannot
 * be reached; the first one that answers decides.
 */
export async function sendDirect(
  domain: string,
  envelope: Envelope,
  raw: Buffer,
  settings: DirectSettings,
): Promise<Outcome[]> {
  const answer = await mxHosts(domain, settings.mxResolver);
  if ('outcome' in answer) return allRecipients(envelope.to, answer.outcome, answer.reply, null);
  let outcomes: Outcome[] = [];
  for (const host of answer.hosts) {
    outcomes = await sendOnce(
      {
        host,
        port: settings.port,
        secure: false,
        name: settings.hostname,
        tls: { rejectUnauthorized: false },
        connectionTimeout: settings.timeoutMs,
        greetingTimeout: settings.timeoutMs,
        socketTimeout: settings.timeoutMs,
      },
      envelope,
      raw,
      host,
    );
    const unreachable = outcomes.every((o) => o.result === 'temporary' && o.remoteMta === null);
    if (!unreachable) return outcomes;
  }
  return outcomes;
}
