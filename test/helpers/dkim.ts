import { authenticate } from 'mailauth';
import { dnsRecordsFor } from '../../src/mailbox/operations/admin.js';
import type { DomainRow } from '../../src/store/domains.js';

/** The DKIM results of a message, checked against the TXT record Mailroom tells you to publish for `domain`. */
export async function dkimResults(raw: Buffer, domain: DomainRow, sender: string) {
  const dkim = dnsRecordsFor(domain, `mx.${domain.name}`).find((r) => r.name.includes('._domainkey.'))!;
  const resolver = async (name: string, type: string) => {
    if (type === 'TXT' && name.toLowerCase() === dkim.name.toLowerCase()) return [[dkim.value]];
    throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
  };
  const result = await authenticate(raw, {
    ip: '127.0.0.1',
    helo: 'localhost',
    sender,
    mta: 'capture.test',
    resolver: resolver as never,
    disableArc: true,
    disableBimi: true,
  });
  return (result.dkim?.results ?? []) as { signingDomain?: string; status?: { result?: string } }[];
}
