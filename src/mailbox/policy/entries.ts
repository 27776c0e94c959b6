import { splitTag } from '../../mail/addresses.js';

/** The longest entry kept: an address's limit (RFC 5321 4.5.3.1.3). */
export const ENTRY_MAX = 254;

const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`;
const DOMAIN = new RegExp(String.raw`^${LABEL}(?:\.${LABEL})+$`, 'u');
const LOCAL = /^[^\s@"<>()[\]\\,;:]+$/u;

/**
 * A list entry as stored: trimmed, lower-case; `@example.com` and `*.example.com` are taken as the
 * domain `example.com` (which covers its subdomains anyway). Answers a problem in words instead
 * when the entry is neither an address nor a domain.
 */
export function normalizeEntry(raw: string): { entry: string } | { problem: string } {
  let entry = raw.trim().toLowerCase();
  if (entry.startsWith('*.')) entry = entry.slice(2);
  else if (entry.startsWith('@')) entry = entry.slice(1);
  if (entry === '')
    return { problem: 'entry is required: an address (bob@example.com) or a domain (example.com)' };
  if ([...entry].length > ENTRY_MAX) return { problem: `entry must be at most ${ENTRY_MAX} characters` };
  const at = entry.lastIndexOf('@');
  const domain = at < 0 ? entry : entry.slice(at + 1);
  const local = at < 0 ? null : entry.slice(0, at);
  if (!DOMAIN.test(domain) || (local !== null && !LOCAL.test(local))) {
    return {
      problem: `entry ${JSON.stringify(raw.trim())} is neither an address (bob@example.com) nor a domain (example.com)`,
    };
  }
  return { entry };
}

/**
 * The places an address is looked up, most specific first: the address, its form without a
 * `+tag`, then its domain and each parent domain (`a.b.example.com`, `b.example.com`,
 * `example.com`), the bare top-level label last.
 */
export function lookupKeys(address: string): { addresses: string[]; domains: string[] } {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return { addresses: [], domains: [] };
  const { base } = splitTag(lower);
  const addresses = base === lower ? [lower] : [lower, base];
  const labels = lower.slice(at + 1).split('.');
  const domains = labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d !== '');
  return { addresses, domains };
}
