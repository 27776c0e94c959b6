import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * What kind of address an IP is: public (globally routable unicast), loopback, or otherwise
 * non-public (private, link-local, shared, documentation, multicast...). Every guard on where
 * the server connects (webhooks, connected mailboxes) asks here, so one list decides.
 */

const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4], // includes 255.255.255.255
] as const) {
  blockedV4.addSubnet(net, prefix, 'ipv4');
}

// Only 2000::/3 is allocated as global unicast; everything outside it (::1, ::, fe80::/10,
// fc00::/7, ff00::/8, 64:ff9b:1::/48, 100::/64, ...) is non-public. Forms embedding an IPv4
// address are unwrapped before this list is consulted.
const globalV6 = new BlockList();
globalV6.addSubnet('2000::', 3, 'ipv6');

const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 32], // Teredo: tunnels to an embedded, obfuscated IPv4 address
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // deprecated ORCHID
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

/** Expands an IPv6 literal (zone id and dotted IPv4 tail allowed) into its eight 16-bit groups. */
function ipv6Groups(ip: string): number[] | null {
  let s = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = tail.split('.').map(Number);
    const hi = (((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16);
    const lo = (((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16);
    s = `${s.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const [headPart = '', tailPart] = s.split('::');
  const head = headPart ? headPart.split(':') : [];
  const rest = tailPart ? tailPart.split(':') : [];
  const fill = tailPart === undefined ? [] : new Array<string>(8 - head.length - rest.length).fill('0');
  const groups = [...head, ...fill, ...rest].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

function isPublicV4(ip: string): boolean {
  return !blockedV4.check(ip, 'ipv4');
}

function isPublicV6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = v4FromGroups(g6, g7);
  const first64Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  // ::a.b.c.d (IPv4-compatible, also covers :: and ::1), ::ffff:a.b.c.d (mapped),
  // ::ffff:0:a.b.c.d (SIIT) and 64:ff9b::a.b.c.d (NAT64) all reach the embedded IPv4 address.
  if (first64Zero && ((g4 === 0 && (g5 === 0 || g5 === 0xffff)) || (g4 === 0xffff && g5 === 0))) {
    return isPublicV4(embedded);
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPublicV4(embedded);
  }
  // 6to4 carries its IPv4 address in groups 1 and 2.
  if (g0 === 0x2002 && !isPublicV4(v4FromGroups(g1, g2))) return false;
  const canonical = g.map((x) => x.toString(16)).join(':');
  return globalV6.check(canonical, 'ipv6') && !blockedV6.check(canonical, 'ipv6');
}

/** True only for a globally routable unicast IP address; anything that is not an IP is false. */
export function isPublicAddress(ip: string): boolean {
  if (isIPv4(ip)) return isPublicV4(ip);
  const groups = ipv6Groups(ip);
  return groups ? isPublicV6(groups) : false;
}

const loopbackV4 = new BlockList();
loopbackV4.addSubnet('127.0.0.0', 8, 'ipv4');

/** 127.0.0.0/8, ::1, and those IPv4 addresses mapped into IPv6 (::ffff:127.x.y.z). */
export function isLoopbackAddress(ip: string): boolean {
  if (isIPv4(ip)) return loopbackV4.check(ip, 'ipv4');
  const g = ipv6Groups(ip);
  if (!g) return false;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  if (g0 !== 0 || g1 !== 0 || g2 !== 0 || g3 !== 0 || g4 !== 0) return false;
  if (g5 === 0xffff) return loopbackV4.check(v4FromGroups(g6, g7), 'ipv4');
  return g5 === 0 && g6 === 0 && g7 === 1;
}

/** `localhost` and names under it (RFC 6761: they are the machine itself, whatever DNS says). */
export function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** A URL's hostname as a bare IP literal (IPv6 brackets removed), or null when it is a name. */
export function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return isIPv4(hostname) ? hostname : null;
}

/** Whether listeners bound to `host` take connections from this machine only. */
export function bindsLoopbackOnly(host: string): boolean {
  return isLocalhostName(host) || isLoopbackAddress(ipLiteral(host) ?? host);
}
