import type { ComposeAttachment } from './compose.js';
import { htmlToText } from './html-text.js';
import { hasForwardPrefix, hasReplyPrefix } from './subject.js';
import type { ParsedAddress, ParsedEmail } from './types.js';

export interface ReplyPlan {
  to: string[];
  cc: string[];
  subject: string;
  inReplyTo: string;
  references: string[];
  text?: string;
  html?: string;
}

export interface ForwardPlan {
  subject: string;
  inReplyTo: string;
  references: string[];
  text: string;
  html?: string;
  attachments: ComposeAttachment[];
}

const BLOCKQUOTE_OPEN =
  '<blockquote type="cite" style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">';

function prefixed(prefix: string, subject: string): string {
  const s = subject.trim();
  return s ? `${prefix} ${s}` : prefix;
}

export function replySubject(subject: string): string {
  return hasReplyPrefix(subject) ? subject : prefixed('Re:', subject);
}

export function forwardSubject(subject: string): string {
  return hasForwardPrefix(subject) ? subject : prefixed('Fwd:', subject);
}

/** Lower-cased, with any `+tag` dropped from the local part: how the replying account is recognised. */
function selfKey(address: string): string {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf('@');
  if (at < 0) return a;
  const local = a.slice(0, at);
  const plus = local.indexOf('+');
  return (plus > 0 ? local.slice(0, plus) : local) + a.slice(at);
}

function addressesOf(list: ParsedAddress[]): string[] {
  return list.map((a) => a.address.trim()).filter((a) => a.includes('@'));
}

function uniqueExcluding(list: string[], exclude: Set<string> = new Set()): string[] {
  const seen = new Set(exclude);
  const out: string[] = [];
  for (const a of list) {
    const key = a.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(a);
  }
  return out;
}

function threadIds(original: ParsedEmail): { inReplyTo: string; references: string[] } {
  const parents = original.references.length
    ? original.references
    : original.inReplyTo
      ? [original.inReplyTo]
      : [];
  return { inReplyTo: original.messageId, references: [...new Set([...parents, original.messageId])] };
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** RFC 2822-like, in UTC: `Sat, 21 Nov 2026 10:00 +0000`. */
export function formatQuoteDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} +0000`
  );
}

function formatAddress(a: ParsedAddress | null): string {
  if (!a || !a.address) return a?.name || 'unknown sender';
  return a.name ? `${a.name} <${a.address}>` : a.address;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function normalizeNewlines(s: string): string {
  return s.replace(/\r\n?/g, '\n');
}

/** Escaped text as html: blank-line separated paragraphs in <p>, single line breaks as <br>. */
export function textToHtml(text: string): string {
  return normalizeNewlines(text)
    .trim()
    .split(/\n{2,}/)
    .filter((p) => p.length > 0)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** The body of an html document, or the fragment itself when there is no <body>. */
function htmlBody(html: string): string {
  const body = /<body\b[^>]*>([\s\S]*?)(?:<\/body\s*>|$)/i.exec(html);
  return body?.[1] ?? html.replace(/<!doctype[^>]*>/i, '').replace(/<head\b[\s\S]*?<\/head\s*>/i, '');
}

function quoteText(text: string): string {
  return normalizeNewlines(text)
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

function originalHtml(original: ParsedEmail): string {
  return original.html ? htmlBody(original.html) : textToHtml(original.text);
}

function ownText(text: string | undefined, html: string | undefined): string {
  return text ?? (html !== undefined ? htmlToText(html) : '');
}

function ownHtml(text: string | undefined, html: string | undefined): string {
  return html ?? (text !== undefined ? textToHtml(text) : '');
}

function joinBlocks(first: string, rest: string, sep: string): string {
  return first.trim() ? `${first.replace(/\s+$/, '')}${sep}${rest}` : rest;
}

export function planReply(
  original: ParsedEmail,
  opts: {
    selfAddress: string;
    text?: string;
    html?: string;
    replyAll: boolean;
    includeOriginal: boolean;
    extraCc?: string[];
    originalDate: Date;
  },
): ReplyPlan {
  const self = selfKey(opts.selfAddress);
  const notSelf = (a: string) => selfKey(a) !== self;

  const replyTo = addressesOf(original.replyTo);
  const target = replyTo.length ? replyTo : addressesOf(original.from ? [original.from] : []);
  let to = uniqueExcluding(target.filter(notSelf));
  if (to.length === 0) to = uniqueExcluding(addressesOf(original.to).filter(notSelf));
  if (to.length === 0) to = uniqueExcluding(target);

  const toKeys = new Set(to.map((a) => a.toLowerCase()));
  const others = opts.replyAll
    ? [...addressesOf(original.to), ...addressesOf(original.cc)].filter(notSelf)
    : [];
  const cc = uniqueExcluding([...others, ...(opts.extraCc ?? [])], toKeys);

  const plan: ReplyPlan = { to, cc, subject: replySubject(original.subject), ...threadIds(original) };
  if (!opts.includeOriginal) {
    if (opts.text !== undefined) plan.text = opts.text;
    if (opts.html !== undefined) plan.html = opts.html;
    return plan;
  }

  const attribution = `On ${formatQuoteDate(opts.originalDate)}, ${formatAddress(original.from)} wrote:`;
  plan.text = joinBlocks(
    ownText(opts.text, opts.html),
    `${attribution}\n${quoteText(original.text)}\n`,
    '\n\n',
  );
  plan.html = joinBlocks(
    ownHtml(opts.text, opts.html),
    `<div>${escapeHtml(attribution)}</div>\n${BLOCKQUOTE_OPEN}\n${originalHtml(original)}\n</blockquote>\n`,
    '\n<br>\n',
  );
  return plan;
}

export function planForward(
  original: ParsedEmail,
  opts: { text?: string; html?: string; includeAttachments: boolean; originalDate: Date },
): ForwardPlan {
  const header: [string, string][] = [
    ['From', formatAddress(original.from)],
    ['Date', formatQuoteDate(opts.originalDate)],
    ['Subject', original.subject],
    ['To', original.to.map(formatAddress).join(', ')],
  ];
  if (original.cc.length) header.push(['Cc', original.cc.map(formatAddress).join(', ')]);

  const marker = '---------- Forwarded message ---------';
  const textBlock = [marker, ...header.map(([k, v]) => `${k}: ${v}`)].join('\n');
  const htmlBlock =
    `<div>${marker}<br>\n` +
    header.map(([k, v]) => `${k}: ${escapeHtml(v)}<br>\n`).join('') +
    '</div>\n<br>\n';

  return {
    subject: forwardSubject(original.subject),
    ...threadIds(original),
    text: joinBlocks(
      ownText(opts.text, opts.html),
      `${textBlock}\n\n${normalizeNewlines(original.text).replace(/\n+$/, '')}\n`,
      '\n\n',
    ),
    html: joinBlocks(ownHtml(opts.text, opts.html), `${htmlBlock}${originalHtml(original)}\n`, '\n<br>\n'),
    attachments: opts.includeAttachments
      ? original.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
          contentId: a.contentId,
          inline: a.inline,
        }))
      : [],
  };
}
