import { ipLiteral } from '../../net/address-ranges.js';
import type { Resolver } from '../../net/reach.js';
import { checkHost } from '../../net/reach.js';
import type { MailboxDeps } from '../deps.js';
import { ValidationFailed } from '../errors.js';
import type { RemoteConfig } from '../remote.js';

/*
 * A person connecting a mailbox from the dashboard names servers this server then connects to:
 * left open, that is a port scanner of the server's own machine and networks (an open and a
 * closed port answer differently) and a way into 10.x, 169.254.x and the like. Such a mailbox's
 * servers must be on public addresses (contract 9) unless MAILROOM_CONNECT_ALLOW_PRIVATE: refused
 * before anything is tried, then again at every connection, on the address the name resolves
 * to then, which is the one connected to (no DNS-rebinding window). Operators (admin API, CLI)
 * are not limited.
 */

export type ServerField = 'imap' | 'smtp';

/** The same words for every private address, open port or closed: nothing about it is told. */
export class PrivateServerRefused extends ValidationFailed {
  constructor(field: ServerField) {
    const message =
      `the ${field.toUpperCase()} server is on a loopback, private or link-local address: a mailbox ` +
      'connected here must be on a public one, unless the server runs with MAILROOM_CONNECT_ALLOW_PRIVATE=true';
    super(message, [{ path: field, message }]);
  }
}

/**
 * The resolver every connection to this mailbox's servers goes through when they must stay
 * public (a user connected it, and MAILROOM_CONNECT_ALLOW_PRIVATE is off); else undefined.
 */
export function publicOnlyResolver(
  config: RemoteConfig,
  deps: Pick<MailboxDeps, 'config' | 'lookups'>,
): Resolver | undefined {
  return config.publicOnly && !deps.config.connectAllowPrivate ? deps.lookups.resolve : undefined;
}

/**
 * Refuses, before any connection, servers on a non-public address: IP literals and localhost
 * names as written, names by what they resolve to now. A name that does not resolve is left to
 * the connection, which says it cannot reach it. Options after `?` are refused too: the SMTP
 * client reads them as its own (`proxy=`, `localAddress=`), which would connect elsewhere.
 */
export async function refusePrivateServers(
  servers: Record<ServerField, string>,
  resolve: Resolver,
): Promise<void> {
  for (const field of ['imap', 'smtp'] as const) {
    if (new URL(servers[field]).search !== '')
      throw ValidationFailed.field(field, `${field} must not carry options after "?"`);
  }
  for (const field of ['imap', 'smtp'] as const) {
    const check = await checkHost(new URL(servers[field]).hostname, 'public', resolve);
    if (!check.ok && check.why !== 'unresolved') throw new PrivateServerRefused(field);
  }
}

/**
 * Where to connect for `url` when its server must be public: the address its host resolves to
 * now, checked, with the name kept for TLS (SNI and the certificate check). Throws
 * PrivateServerRefused, or the resolver's own error when the name does not resolve.
 */
export async function publicAddressOf(
  url: string,
  field: ServerField,
  resolve: Resolver,
): Promise<{ host: string; servername?: string }> {
  const hostname = new URL(url).hostname;
  const check = await checkHost(hostname, 'public', resolve);
  if (!check.ok) throw check.why === 'unresolved' ? check.error : new PrivateServerRefused(field);
  return ipLiteral(hostname) !== null
    ? { host: check.addresses[0]! }
    : { host: check.addresses[0]!, servername: hostname };
}
