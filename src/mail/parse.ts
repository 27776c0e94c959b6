import { createHash } from 'node:crypto';
import type { AddressObject, HeaderValue, Headers, SimpleParserOptions } from 'mailparser';
import { htmlToText as convertHtml } from 'html-to-text';
import libmime from 'libmime';
import mime from 'mime-types';
import { lowerDomain, parseAddressList } from './addresses.js';
import { collectMail } from './collect-mail.js';
import type { CollectedAttachment, KeepContent } from './collect-mail.js';
import { diagnose } from './diagnose.js';
import { headersAsUtf8 } from './header-charset.js';
import { boundMime, MAX_MIME_PARTS, ORIGINAL_TYPE_PARAM } from './mime-bounds.js';
import { capParsed } from './parse-caps.js';
import { withoutHidden } from './screening/html-reading.js';
import { MAX_NESTING, nestedDeeperThan } from './html-text.js';
import type { ParsedAddress, ParsedAttachment, ParsedEmail } from './types.js';

interface HeaderLine {
  key: string;
  line: string;
}

const PARSER_OPTIONS: SimpleParserOptions = {
  skipImageLinks: true,
  keepCidLinks: true,
  skipTextLinks: true,
  skipTextToHtml: true,
  // Text is made from the html here, from what a reader sees of it (withoutHidden).
  skipHtmlToText: true,
  checksumAlgo: false,
  // boundMime has already cut the message at MAX_MIME_PARTS; embedded messages' parts count too.
  maxChildNodes: MAX_MIME_PARTS * 2,
};

const KEPT_HEADERS = new Set([
  ...'list-id list-unsubscribe list-unsubscribe-post list-post precedence auto-submitted'.split(' '),
  ...'x-auto-response-suppress x-autoreply x-autorespond x-mailer user-agent content-type received'.split(
    ' ',
  ),
  ...'return-path sender delivered-to x-original-to authentication-results'.split(' '),
]);
const MAX_HEADER_VALUE = 4096;
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const MSG_ID = /<[^<>\s]+>/g;

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 200);
const toLf = (s: string): string => s.replace(/\r\n?/g, '\n');

function decodeWords(value: string): string {
  try {
    return libmime.decodeWords(value);
  } catch {
    return value;
  }
}

function rawValue(lines: readonly HeaderLine[], key: string): string | null {
  const found = lines.find((l) => l.key === key);
  if (!found) return null;
  const colon = found.line.indexOf(':');
  return colon < 0
    ? ''
    : found.line
        .slice(colon + 1)
        .replace(/\r?\n(?=[ \t])/g, '')
        .trim();
}

function messageIdOf(
  lines: readonly HeaderLine[],
  raw: Buffer,
): { messageId: string; messageIdGenerated: boolean } {
  const value =
    rawValue(lines, 'message-id')
      ?.replace(/\([^()]*\)/g, '')
      .trim() ?? '';
  const bracketed = value.match(MSG_ID)?.[0];
  const bare = value.split(/\s+/)[0]?.replace(/[<>]/g, '');
  const messageId = bracketed ?? (bare ? `<${bare}>` : '');
  if (messageId) return { messageId, messageIdGenerated: false };
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 24);
  return { messageId: `<generated-${hash}@mailroom.invalid>`, messageIdGenerated: true };
}

function threadingOf(lines: readonly HeaderLine[]): { inReplyTo: string | null; references: string[] } {
  const inReplyTo = rawValue(lines, 'in-reply-to')?.match(MSG_ID)?.[0] ?? null;
  const references = lines
    .filter((l) => l.key === 'references')
    .flatMap((l) => l.line.slice(l.line.indexOf(':') + 1).match(MSG_ID) ?? []);
  return { inReplyTo, references };
}

function dateOf(lines: readonly HeaderLine[], warnings: string[]): Date | null {
  const value = rawValue(lines, 'date');
  if (!value) return null;
  const date = new Date(value);
  if (!Number.isNaN(date.getTime())) return date;
  warnings.push(`unparseable Date header "${value.slice(0, 60)}"`);
  return null;
}

function addressText(value: HeaderValue | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (!first || typeof first !== 'object' || !('value' in first) || !('html' in first)) return null;
  const text: unknown = (first as AddressObject).text;
  return typeof text === 'string' ? text : null;
}

function headersOf(lines: readonly HeaderLine[], parsed?: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key } of lines) {
    if (!KEPT_HEADERS.has(key) || key in out) continue;
    const value = addressText(parsed?.get(key)) ?? decodeWords(rawValue(lines, key) ?? '');
    out[key] = value.replace(/\s+/g, ' ').trim().slice(0, MAX_HEADER_VALUE);
  }
  return out;
}

function fromAddressObjects(value: AddressObject | AddressObject[] | undefined): ParsedAddress[] {
  const out: ParsedAddress[] = [];
  const walk = (entries: AddressObject['value']): void => {
    for (const entry of entries) {
      if (entry.group) walk(entry.group);
      else if (entry.address || entry.name)
        out.push({ address: lowerDomain(entry.address ?? ''), name: entry.name ?? '' });
    }
  };
  for (const obj of Array.isArray(value) ? value : value ? [value] : []) walk(obj.value ?? []);
  return out;
}

function safeFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  return base.replace(/[\p{Cc}]/gu, '').trim();
}

/** The type a part was sent with, when boundMime had to retype it to keep it. */
function originalType(a: CollectedAttachment): string | undefined {
  const header = a.headers?.get('content-type');
  const params = header && typeof header === 'object' && 'params' in header ? header.params : undefined;
  return (params as Record<string, string | undefined> | undefined)?.[ORIGINAL_TYPE_PARAM];
}

function toAttachment(a: CollectedAttachment, index: number): ParsedAttachment {
  const n = index + 1;
  const contentType = (originalType(a) || a.contentType || 'application/octet-stream').toLowerCase();
  const content = a.content ?? Buffer.alloc(0);
  const ext = mime.extension(contentType);
  const filename = safeFilename(a.filename) || `attachment-${n}${ext ? `.${ext}` : ''}`;
  const contentId = a.cid || a.contentId?.replace(/^<|>$/g, '') || null;
  const inline = contentId !== null && (a.contentDisposition === 'inline' || a.related === true);
  return { id: `a${n}`, filename, contentType, size: a.size, contentId, inline, content };
}

/**
 * The text of a message that has only html, made as mailparser makes it (html-to-text) from what
 * a reader sees of the html (withoutHidden): hidden text is not the message's text.
 */
function htmlToText(html: string, warnings: string[]): string {
  if (nestedDeeperThan(html, MAX_NESTING)) {
    warnings.push(`html to text failed: HTML nested deeper than ${MAX_NESTING} levels`);
    return '';
  }
  try {
    return convertHtml(withoutHidden(html), { limits: { maxDepth: MAX_NESTING } });
  } catch (err) {
    warnings.push(`could not derive text from html: ${errorText(err)}`);
    return html.replace(/<[^>]*>/g, ' ');
  }
}

function readableRaw(raw: Buffer): string {
  return toLf(raw.toString('utf8')).replace(/[^\P{Cc}\t\n]/gu, '');
}

function hasHeaders(lines: readonly HeaderLine[]): boolean {
  return lines.some((l) => HEADER_NAME.test(l.key) && l.line.includes(':'));
}

function commonFields(lines: readonly HeaderLine[], raw: Buffer, warnings: string[]) {
  return { ...messageIdOf(lines, raw), ...threadingOf(lines), date: dateOf(lines, warnings) };
}

const addressHeader = (headers: Headers, key: string) =>
  headers.get(key) as AddressObject | AddressObject[] | undefined;

async function parseWithMailparser(
  raw: Buffer,
  original: Buffer,
  warnings: string[],
  keep: KeepContent,
): Promise<ParsedEmail> {
  const mail = await collectMail(raw, PARSER_OPTIONS, keep);
  const lines: readonly HeaderLine[] = mail.headerLines;
  const subject = mail.headers.get('subject');
  const html = typeof mail.html === 'string' ? mail.html : '';
  let text = toLf(mail.text ?? '');
  if (mail.textConversionError) warnings.push(`html to text failed: ${errorText(mail.textConversionError)}`);
  if (!text.trim() && html.trim()) text = toLf(htmlToText(html, warnings));
  if (raw.length > 0 && !hasHeaders(lines)) {
    warnings.push('no headers found; the content is kept as text');
    if (!text && !html) text = readableRaw(raw);
  }
  return {
    ...commonFields(lines, original, warnings),
    from: fromAddressObjects(addressHeader(mail.headers, 'from'))[0] ?? null,
    to: fromAddressObjects(addressHeader(mail.headers, 'to')),
    cc: fromAddressObjects(addressHeader(mail.headers, 'cc')),
    bcc: fromAddressObjects(addressHeader(mail.headers, 'bcc')),
    replyTo: fromAddressObjects(addressHeader(mail.headers, 'reply-to')),
    subject: (typeof subject === 'string' ? subject : '').trim(),
    text,
    html,
    attachments: mail.attachments.map(toAttachment),
    headers: headersOf(lines, mail.headers),
    warnings,
  };
}

function splitHeaderLines(block: string): HeaderLine[] {
  const lines: HeaderLine[] = [];
  for (const physical of block.split(/\r?\n/)) {
    const last = lines[lines.length - 1];
    if (/^[ \t]/.test(physical) && last) {
      last.line += `\r\n${physical}`;
      continue;
    }
    const name = /^([^:\s]+)[ \t]*:/.exec(physical)?.[1];
    if (name) lines.push({ key: name.toLowerCase(), line: physical });
  }
  return lines;
}

function parseHeadersOnly(raw: Buffer, original: Buffer, warnings: string[]): ParsedEmail {
  const source = raw.toString('utf8');
  const split = /\r?\n\r?\n/.exec(source);
  const head = split ? source.slice(0, split.index) : source;
  const lines = splitHeaderLines(head);
  const valid = hasHeaders(lines);
  const body = valid ? (split ? source.slice(split.index + split[0].length) : '') : source;
  const list = (key: string): ParsedAddress[] =>
    parseAddressList(lines.filter((l) => l.key === key).map((l) => rawValue([l], key) ?? ''));
  return {
    ...commonFields(lines, original, warnings),
    from: list('from')[0] ?? null,
    to: list('to'),
    cc: list('cc'),
    bcc: list('bcc'),
    replyTo: list('reply-to'),
    subject: decodeWords(rawValue(lines, 'subject') ?? '').trim(),
    text: readableRaw(Buffer.from(body, 'utf8')),
    html: '',
    attachments: [],
    headers: headersOf(lines),
    warnings,
  };
}

function emptyEmail(raw: Buffer, warnings: string[]): ParsedEmail {
  return {
    ...messageIdOf([], raw),
    from: null,
    to: [],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: '',
    date: null,
    text: readableRaw(raw),
    html: '',
    inReplyTo: null,
    references: [],
    attachments: [],
    headers: {},
    warnings,
  };
}

function asBuffer(raw: Buffer): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  return (raw as unknown) instanceof Uint8Array ? Buffer.from(raw) : Buffer.alloc(0);
}

export interface ParseOptions {
  /**
   * Attachments whose bytes are read into `content`: all (the default), none, or the one with
   * this id. The others get an empty `content`; every `size` is exact either way.
   */
  content?: 'all' | 'none' | { only: string };
}

function keepContent(content: ParseOptions['content'] = 'all'): KeepContent {
  if (content === 'all') return () => true;
  if (content === 'none') return () => false;
  return (index) => `a${index + 1}` === content.only;
}

/** Reads a raw RFC 5322 message. Never throws: what cannot be read is left empty and noted in `warnings`. */
export async function parseEmail(raw: Buffer, options: ParseOptions = {}): Promise<ParsedEmail> {
  const input = asBuffer(raw);
  const warnings: string[] = [];
  if (input.length === 0) warnings.push('empty message');
  const bounded = boundMime(headersAsUtf8(input));
  warnings.push(...bounded.warnings);
  let result: ParsedEmail;
  try {
    result = await parseWithMailparser(bounded.input, input, warnings, keepContent(options.content));
  } catch (err) {
    warnings.push(`MIME parsing failed (${errorText(err)}); only the headers were read`);
    result = headersOnlyOrEmpty(bounded.input, input, warnings);
  }
  try {
    warnings.push(...diagnose(input));
  } catch {
    /* diagnostics are best effort */
  }
  return capParsed(result, bounded.addressTotals);
}

function headersOnlyOrEmpty(raw: Buffer, original: Buffer, warnings: string[]): ParsedEmail {
  try {
    return parseHeadersOnly(raw, original, warnings);
  } catch (err) {
    warnings.push(`header parsing failed (${errorText(err)})`);
    return emptyEmail(original, warnings);
  }
}

/** What the headers-only reading looks at: the header block and the start of the body. */
const HEADERS_ONLY_BYTES = 1024 * 1024;

/**
 * A quick, bounded reading for when the full parse cannot be had (it ran past its deadline):
 * headers and the start of the body as text, no attachments. Synchronous, at most about 1 MB of work.
 */
export function parseHeadersOnlyBounded(raw: Buffer, why: string): ParsedEmail {
  const input = asBuffer(raw);
  const warnings = [why];
  const bounded = boundMime(headersAsUtf8(input.subarray(0, HEADERS_ONLY_BYTES)));
  warnings.push(...bounded.warnings);
  return capParsed(headersOnlyOrEmpty(bounded.input, input, warnings), bounded.addressTotals);
}
