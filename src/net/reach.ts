import { promises as dnsPromises } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { ipLiteral, isLocalhostName, isLoopbackAddress, isPublicAddress } from './address-ranges.js';

/** The addresses a host name resolves to. */
export type Resolver = (host: string) => Promise<string[]>;

/** As a connection resolves a name: getaddrinfo (the hosts file, then DNS), every address. */
export const defaultResolve: Resolver = async (host) =>
  (await dnsPromises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Which addresses a connection may go to: public ones only; public and this machine's loopback;
 * or any (an operator's setting allowed private networks).
 */
export type Reach = 'public' | 'public-or-loopback' | 'any';

export function mayReach(ip: string, reach: Reach): boolean {
  return reach === 'any' || isPublicAddress(ip) || (reach === 'public-or-loopback' && isLoopbackAddress(ip));
}

/**
 * A host checked against a reach. `addresses` are those a connection may use (the literal, or
 * every address the name resolved to; none looked up for `any`). A refusal says why: an IP
 * literal out of reach, a localhost name (refused without a lookup), a name resolving to an
 * address out of reach (`address`, for the server log), or a name that did not resolve.
 */
export type HostCheck =
  | { ok: true; addresses: string[] }
  | OutOfReach
  | { ok: false; why: 'unresolved'; error: Error };

export interface OutOfReach {
  ok: false;
  why: 'literal' | 'localhost' | 'resolves';
  address: string;
}

export async function checkHost(hostname: string, reach: Reach, resolve: Resolver): Promise<HostCheck> {
  const literal = ipLiteral(hostname);
  if (literal !== null) {
    return mayReach(literal, reach)
      ? { ok: true, addresses: [literal] }
      : { ok: false, why: 'literal', address: literal };
  }
  if (reach === 'any') return { ok: true, addresses: [] };
  if (reach === 'public' && isLocalhostName(hostname))
    return { ok: false, why: 'localhost', address: hostname };
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    return { ok: false, why: 'unresolved', error: error instanceof Error ? error : new Error(String(error)) };
  }
  if (addresses.length === 0) return { ok: false, why: 'unresolved', error: notFound(hostname) };
  const bad = addresses.find((a) => !mayReach(a, reach));
  return bad === undefined ? { ok: true, addresses } : { ok: false, why: 'resolves', address: bad };
}

const notFound = (hostname: string) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });

/**
 * A socket-level `lookup` that resolves the name itself and fails the connection when an
 * address is out of reach (the error `refusal` makes). Checking here, not only before, closes
 * the window in which the name could be re-pointed (DNS rebinding) after it was checked.
 */
export function guardedLookup(
  resolve: Resolver,
  reach: Reach,
  refusal: (check: OutOfReach) => Error,
): LookupFunction {
  return (hostname, options, callback) => {
    const addresses = async (): Promise<string[]> => {
      const check = await checkHost(hostname, reach, resolve);
      if (!check.ok) throw check.why === 'unresolved' ? check.error : refusal(check);
      return check.addresses.length > 0 ? check.addresses : resolve(hostname);
    };
    addresses().then(
      (found) => {
        const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family || 0;
        const list = found
          .map((address) => ({ address, family: isIP(address) }))
          .filter((a) => a.family !== 0 && (wanted === 0 || a.family === wanted));
        const first = list[0];
        if (first === undefined) callback(notFound(hostname), '', 0);
        else if (options.all) callback(null, list);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), '', 0),
    );
  };
}
