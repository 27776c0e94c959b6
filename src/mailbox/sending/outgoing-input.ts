import type { z } from '@hono/zod-openapi';
import mime from 'mime-types';
import type { AttachmentInput as AttachmentInputSchema } from '../../contract/send.js';
import { formatAddress, isValidAddress, normalizeAddress, parseAddressList } from '../../mail/addresses.js';
import type { ComposeAttachment } from '../../mail/compose.js';
import { checkExtraHeaders } from '../../mail/compose.js';
import type { ParsedAddress } from '../../mail/types.js';
import type { ErrorDetail } from '../errors.js';
import { TooLarge, ValidationFailed } from '../errors.js';

/** An attachment as the API takes it: the content in base64. */
export type AttachmentInput = z.infer<typeof AttachmentInputSchema>;

export interface Recipients {
  /** As given (display names kept), for the headers. */
  entries: string[];
  /** Bare addresses, for the envelope and the Email view. */
  addresses: string[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// Something that reads as an address inside a display name, the full-width and small @ included.
const AT = '@\uFF20\uFE6B';
const PART = `[^\\s<>()\\[\\]"',;:${AT}]+`;
const ADDRESS_IN_TEXT = new RegExp(`${PART}[${AT}]${PART}\\.${PART}`, 'gu');
const ANY_AT = new RegExp(`[${AT}]`, 'gu');

/**
 * Why a display name misleads, or null: it shows an address other than the one the mail is
 * really from or to (`"agent@mailroom.test" <bob@evil.example>`), which many mail clients show
 * in place of the address.
 */
function misleadingName({ name, address }: ParsedAddress): string | null {
  for (const shown of name.match(ADDRESS_IN_TEXT) ?? []) {
    const plain = shown.replace(ANY_AT, '@').replace(/\.+$/, '');
    if (normalizeAddress(plain) !== normalizeAddress(address)) {
      return `the display name ${JSON.stringify(name)} shows an address other than ${address}`;
    }
  }
  return null;
}

/**
 * Collects what is wrong with a request so a 400 lists every bad field at once
 * (`to.0`, `attachments.1.content`...).
 */
export class InputProblems {
  readonly details: ErrorDetail[] = [];

  add(path: string, message: string): void {
    this.details.push({ path, message });
  }

  throwIfAny(): void {
    const first = this.details[0];
    if (first) throw new ValidationFailed(`${first.path}: ${first.message}`, this.details);
  }
}

/** `to`, `cc`... as a string or a list; each entry `a@b` or `Name <a@b>` (or several, comma separated). */
export function readRecipients(
  value: string | string[] | undefined,
  field: string,
  problems: InputProblems,
): Recipients {
  if (value === undefined) return { entries: [], addresses: [] };
  const list = Array.isArray(value) ? value : [value];
  const out: Recipients = { entries: [], addresses: [] };
  list.forEach((entry, i) => {
    const path = Array.isArray(value) ? `${field}.${i}` : field;
    const parsed = /[\r\n\0]/.test(entry) ? [] : parseAddressList(entry);
    const bad = parsed.find((a) => !isValidAddress(a.address));
    if (parsed.length === 0 || bad) {
      problems.add(path, `${JSON.stringify(bad?.address || entry)} is not an email address`);
      return;
    }
    const misleading = parsed.map(misleadingName).find((problem) => problem !== null);
    if (misleading) {
      problems.add(path, misleading);
      return;
    }
    out.entries.push(...parsed.map(formatAddress));
    out.addresses.push(...parsed.map((a) => a.address));
  });
  return out;
}

/** Entries of parsed header addresses, in the form readRecipients gives. */
export function recipientsOf(list: ParsedAddress[]): Recipients {
  const valid = list.filter((a) => isValidAddress(a.address));
  return { entries: valid.map(formatAddress), addresses: valid.map((a) => a.address) };
}

/** Distinct bare addresses, compared case-insensitively, in first-seen order. */
export function distinctAddresses(...lists: string[][]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const address of lists.flat()) {
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(address);
  }
  return out;
}

export function checkRecipientCount(count: number, max: number, problems: InputProblems): void {
  if (count > max) problems.add('to', `at most ${max} recipients (to, cc and bcc together)`);
}

/** `to` (required), `cc` and `bcc` of a new message, checked together against the recipient limit. */
export function readEnvelopeRecipients(
  input: { to?: string | string[]; cc?: string | string[]; bcc?: string | string[] },
  maxRecipients: number,
  problems: InputProblems,
): { to: Recipients; cc: Recipients; bcc: Recipients } {
  const to = readRecipients(input.to, 'to', problems);
  const cc = readRecipients(input.cc, 'cc', problems);
  const bcc = readRecipients(input.bcc, 'bcc', problems);
  if (to.entries.length === 0 && !problems.details.some((d) => d.path.startsWith('to'))) {
    problems.add('to', 'at least one recipient is required');
  }
  checkRecipientCount(
    distinctAddresses(to.addresses, cc.addresses, bcc.addresses).length,
    maxRecipients,
    problems,
  );
  return { to, cc, bcc };
}

/** Decodes base64 attachments; a total over the message limit is 413 before anything is built. */
export function readAttachments(
  list: AttachmentInput[] | undefined,
  maxBytes: number,
  problems: InputProblems,
): ComposeAttachment[] {
  if (!list) return [];
  const estimated = list.reduce((sum, a) => sum + Math.floor((a.content.length * 3) / 4), 0);
  if (estimated > maxBytes)
    throw new TooLarge(`attachments exceed the message size limit of ${maxBytes} bytes`);
  const out: ComposeAttachment[] = [];
  list.forEach((a, i) => {
    const content = a.content.replace(/\s+/g, '');
    if (!BASE64.test(content) || content.length % 4 === 1) {
      problems.add(`attachments.${i}.content`, 'must be base64');
      return;
    }
    const filename = a.filename.replace(/[\p{Cc}/\\]/gu, '_').trim() || `attachment-${i + 1}`;
    out.push({
      filename,
      contentType: a.contentType || mime.lookup(filename) || 'application/octet-stream',
      content: Buffer.from(content, 'base64'),
      contentId: a.contentId ?? null,
      inline: a.inline ?? false,
    });
  });
  return out;
}

export function readExtraHeaders(
  headers: Record<string, string> | undefined,
  problems: InputProblems,
): Record<string, string> | undefined {
  if (!headers) return undefined;
  const error = checkExtraHeaders(headers);
  if (error) problems.add('headers', error);
  return headers;
}

const MAX_SEND_AT_MS = 365 * 24 * 60 * 60 * 1000;

/** `sendAt` of a send (contract 15): a time in the future, at most 365 days ahead. */
export function readSendAt(
  value: string | undefined,
  problems: InputProblems,
  now = Date.now(),
): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()))
    problems.add('sendAt', `${JSON.stringify(value)} is not an ISO 8601 date and time`);
  else if (at.getTime() <= now) {
    problems.add(
      'sendAt',
      `${value} is not in the future (now is ${new Date(now).toISOString()}); leave sendAt out to send now`,
    );
  } else if (at.getTime() - now > MAX_SEND_AT_MS) {
    problems.add('sendAt', `${value} is more than 365 days ahead`);
  }
  return at;
}

/** The `from` of a send: one address, maybe with a display name. */
export function readFrom(value: string): { address: string; name: string } {
  const parsed = /[\r\n\0]/.test(value) ? [] : parseAddressList(value);
  const only = parsed.length === 1 ? parsed[0] : undefined;
  if (!only || !isValidAddress(only.address)) {
    throw ValidationFailed.field('from', `${JSON.stringify(value)} is not an email address`);
  }
  const misleading = misleadingName(only);
  if (misleading) throw ValidationFailed.field('from', misleading);
  return { address: only.address, name: only.name };
}
