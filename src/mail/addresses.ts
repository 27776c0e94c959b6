import addressparser from 'nodemailer/lib/addressparser/index.js';
import libmime from 'libmime';
import type { ParsedAddress } from './types.js';

const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
const MAX_LABEL = 63;
const LOCAL_CHARS = /^[^\s<>()[\]\\,;:"@\p{Cc}]+$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?$/u;

/** Lower-cases the domain part only; the local part stays as written. */
export function lowerDomain(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  return address.slice(0, at) + '@' + address.slice(at + 1).toLowerCase();
}

function decodeName(name: string): string {
  if (!name.includes('=?')) return name.trim();
  try {
    return libmime.decodeWords(name).trim();
  } catch {
    return name.trim();
  }
}

/** Parses one or more address-list header values into mailboxes, groups flattened. */
export function parseAddressList(input: string | string[]): ParsedAddress[] {
  const values = Array.isArray(input) ? input : [input];
  const out: ParsedAddress[] = [];
  for (const value of values) {
    if (typeof value !== 'string' || !value.trim()) continue;
    let parsed: { name: string; address: string }[];
    try {
      parsed = addressparser(value, { flatten: true });
    } catch {
      continue;
    }
    for (const entry of parsed) {
      const address = lowerDomain((entry.address ?? '').trim());
      const name = decodeName(entry.name ?? '');
      if (address || name) out.push({ address, name });
    }
  }
  return out;
}

/** A pragmatic RFC 5321 mailbox check: one @, sane local part, dotted domain, no spaces. */
export function isValidAddress(address: string): boolean {
  if (typeof address !== 'string' || address.length === 0 || address.length > MAX_ADDRESS) return false;
  const parts = address.split('@');
  if (parts.length !== 2) return false;
  const [local = '', domain = ''] = parts;
  if (!local || local.length > MAX_LOCAL || !LOCAL_CHARS.test(local)) return false;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  return labels.every((label) => label.length <= MAX_LABEL && DOMAIN_LABEL.test(label));
}

/** The form used to compare addresses: trimmed and lower-cased as a whole. */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

/** Splits `name+tag@domain` into `name@domain` and `tag`. */
export function splitTag(address: string): { base: string; tag: string | null } {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  const local = at < 0 ? trimmed : trimmed.slice(0, at);
  const domain = at < 0 ? '' : trimmed.slice(at);
  const plus = local.indexOf('+');
  if (plus <= 0) return { base: trimmed, tag: null };
  const tag = local.slice(plus + 1);
  return { base: local.slice(0, plus) + domain, tag: tag || null };
}

/** `"Name" <a@b>` with the name quoted and escaped, or the bare address when there is no name. */
export function formatAddress({ name, address }: { name?: string | null; address: string }): string {
  const clean = (name ?? '').replace(/[\r\n\t]+/g, ' ').trim();
  const bare = address.replace(/[\r\n<>]/g, '').trim();
  if (!clean) return bare;
  return `"${clean.replace(/(["\\])/g, '\\$1')}" <${bare}>`;
}
