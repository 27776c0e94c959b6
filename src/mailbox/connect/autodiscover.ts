import { Resolver } from 'node:dns/promises';
import type { Resolver as AddressResolver } from '../../net/reach.js';
import { checkHost } from '../../net/reach.js';
import type { AutoconfigServer } from './autoconfig-xml.js';
import { parseAutoconfig } from './autoconfig-xml.js';
import type { FetchLike } from './oauth2.js';
import type { ServerEndpoint } from './providers.js';
import { serverUrl } from './providers.js';

/** The DNS questions autodiscovery asks; `systemDns()` asks the system's resolvers. */
export interface AutoconfigDns {
  resolveSrv(name: string): Promise<{ name: string; port: number; priority: number; weight: number }[]>;
  /** Whether a host name has an address (A or AAAA). */
  exists(host: string): Promise<boolean>;
}

/** DNS through a node:dns Resolver (the system's servers, or the ones given). */
export function systemDns(servers?: string[]): AutoconfigDns {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers) resolver.setServers(servers);
  return {
    resolveSrv: (name) => resolver.resolveSrv(name).catch(() => []),
    async exists(host) {
      const v4 = await resolver.resolve4(host).catch(() => []);
      return v4.length > 0 || (await resolver.resolve6(host).catch(() => [])).length > 0;
    },
  };
}

export interface Discovered {
  /** `imaps://user@host:993` and `smtps://user@host:465` (or `smtp://...:587`): no password. */
  imap: string;
  smtp: string;
  /** Where they came from, in plain words. */
  source: string;
  /** The document said these servers take OAuth2 only. */
  oauth2: boolean;
  /** Every place looked at, in order, with what it gave. */
  tried: string[];
}

/** Nothing found: the message says what was tried. */
export class NothingDiscovered extends Error {
  constructor(
    domain: string,
    readonly tried: string[],
  ) {
    super(`no IMAP and SMTP servers found for ${domain}; tried: ${tried.join('; ')}`);
  }
}

const endpointOf = (s: AutoconfigServer): ServerEndpoint => ({
  host: s.host,
  port: s.port,
  security: s.security,
});

const MAX_REDIRECTS = 5;

/**
 * GETs `url`, following redirects itself, each host first checked to be on a public address:
 * for a user's connect, whose domain (and its autoconfig server) the user controls.
 */
async function fetchPublicOnly(url: string, fetchFn: FetchLike, resolve: AddressResolver): Promise<Response> {
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const check = await checkHost(new URL(target).hostname, 'public', resolve);
    if (!check.ok)
      throw new Error(check.why === 'unresolved' ? check.error.message : 'not on a public address');
    const res = await fetchFn(target, { signal: AbortSignal.timeout(5000), redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null) return res;
    target = new URL(location, target).toString();
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}

async function fromAutoconfig(
  address: string,
  domain: string,
  fetchFn: FetchLike,
  tried: string[],
  publicOnly: AddressResolver | undefined,
) {
  const urls = [
    `https://autoconfig.${domain}/mail/config-v1.1.xml?emailaddress=${encodeURIComponent(address)}`,
    `https://${domain}/.well-known/autoconfig/mail/config-v1.1.xml?emailaddress=${encodeURIComponent(address)}`,
  ];
  for (const url of urls) {
    const shown = url.split('?')[0]!;
    try {
      const res = publicOnly
        ? await fetchPublicOnly(url, fetchFn, publicOnly)
        : await fetchFn(url, { signal: AbortSignal.timeout(5000), redirect: 'follow' });
      if (!res.ok) {
        tried.push(`${shown}: HTTP ${res.status}`);
        continue;
      }
      const { imap, smtp } = parseAutoconfig(await res.text(), address);
      if (!imap || !smtp) {
        tried.push(`${shown}: no ${imap ? 'SMTP' : 'IMAP'} server in it`);
        continue;
      }
      return {
        imap: serverUrl('imap', endpointOf(imap), imap.username),
        smtp: serverUrl('smtp', endpointOf(smtp), smtp.username),
        source: `the autoconfig document at ${shown}`,
        oauth2: imap.auth === 'oauth2',
      };
    } catch (error) {
      tried.push(`${shown}: ${(error as Error).message}`);
    }
  }
  return null;
}

/** RFC 6186: the first record of the best priority (then weight); "." means not offered. */
async function srv(dns: AutoconfigDns, name: string) {
  const records = (await dns.resolveSrv(name)).filter((r) => r.name !== '' && r.name !== '.');
  records.sort((a, b) => a.priority - b.priority || b.weight - a.weight);
  return records[0];
}

async function fromSrv(address: string, domain: string, dns: AutoconfigDns, tried: string[]) {
  const first = async (names: [string, 'tls' | 'starttls'][]) => {
    for (const [name, security] of names) {
      const record = await srv(dns, `${name}._tcp.${domain}`);
      if (record) return { host: record.name.replace(/\.$/, ''), port: record.port, security };
    }
    return null;
  };
  const imap = await first([
    ['_imaps', 'tls'],
    ['_imap', 'starttls'],
  ]);
  const smtp = await first([
    ['_submissions', 'tls'],
    ['_submission', 'starttls'],
  ]);
  if (!imap || !smtp) {
    tried.push(
      `SRV records _imaps/_imap and _submissions/_submission._tcp.${domain}: ${imap ? 'no SMTP' : 'no IMAP'} record`,
    );
    return null;
  }
  return {
    imap: serverUrl('imap', imap, address),
    smtp: serverUrl('smtp', smtp, address),
    source: `the SRV records of ${domain} (RFC 6186)`,
    oauth2: false,
  };
}

async function fromHostNames(address: string, domain: string, dns: AutoconfigDns, tried: string[]) {
  const firstExisting = async (names: string[]) => {
    for (const name of names) if (await dns.exists(name)) return name;
    return null;
  };
  const imapHost = await firstExisting([`imap.${domain}`, `mail.${domain}`]);
  const smtpHost = await firstExisting([`smtp.${domain}`, `mail.${domain}`]);
  if (!imapHost || !smtpHost) {
    tried.push(
      `host names imap.${domain}, mail.${domain}, smtp.${domain}: ${imapHost ? 'no SMTP host' : 'none has an address'}`,
    );
    return null;
  }
  return {
    imap: serverUrl('imap', { host: imapHost, port: 993, security: 'tls' }, address),
    smtp: serverUrl('smtp', { host: smtpHost, port: 465, security: 'tls' }, address),
    source: `the common host names ${imapHost} and ${smtpHost} (standard TLS ports, a guess)`,
    oauth2: false,
  };
}

/**
 * The IMAP and SMTP servers of an address from its domain alone: the Mozilla autoconfig document
 * (at autoconfig.<domain>, then <domain>/.well-known), then RFC 6186 SRV records, then the common
 * host names imap./mail./smtp.<domain>. Throws NothingDiscovered saying what was tried. With
 * `publicOnly`, autoconfig documents are fetched from public addresses only (a user's connect).
 */
export async function discoverServers(
  address: string,
  lookups: { dns: AutoconfigDns; fetch: FetchLike },
  publicOnly?: AddressResolver,
): Promise<Discovered> {
  const domain = address.split('@')[1]!.toLowerCase();
  const tried: string[] = [];
  const found =
    (await fromAutoconfig(address, domain, lookups.fetch, tried, publicOnly)) ??
    (await fromSrv(address, domain, lookups.dns, tried)) ??
    (await fromHostNames(address, domain, lookups.dns, tried));
  if (!found) throw new NothingDiscovered(domain, tried);
  return { ...found, tried };
}
