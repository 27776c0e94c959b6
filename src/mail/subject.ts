/**
 * The one list of reply and forward prefixes (Outlook, Gmail and Thunderbird in their common
 * languages): threading strips them, replySubject/forwardSubject in reply.ts test them. `RV` is
 * Spanish Outlook's forward (reenviado), so a reply to `RV: hola` is `Re: RV: hola`.
 */
const REPLY_PREFIXES = [
  're',
  'aw',
  'sv',
  'vs',
  'antw',
  'antwort',
  'réf',
  'rif',
  'odp',
  'ynt',
  'res',
  '回复',
  '回覆',
  '答复',
];
const FORWARD_PREFIXES = [
  'fwd',
  'fw',
  'wg',
  'tr',
  'rv',
  'enc',
  'doorst',
  'vl',
  'pd',
  'ilt',
  'İlt',
  '转发',
  '轉寄',
  '转寄',
  '轉發',
];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function prefixPattern(names: string[]): RegExp {
  const alternatives = [...names].sort((a, b) => b.length - a.length).map(escape);
  return new RegExp(`^\\s*(?:${alternatives.join('|')})\\s*(?:\\[\\d+\\]|\\(\\d+\\))?\\s*[:：]\\s*`, 'iu');
}

const REPLY = prefixPattern(REPLY_PREFIXES);
const FORWARD = prefixPattern(FORWARD_PREFIXES);
const ANY = prefixPattern([...REPLY_PREFIXES, ...FORWARD_PREFIXES]);

/**
 * The subject as compared for threading: every leading reply/forward prefix removed
 * (`Re:`, `Fwd:`, `AW:`, `SV:`, `回复：`, `Re[2]:`...), whitespace collapsed, lower-cased.
 * Bracketed list tags such as `[dev]` are kept.
 */
export function normalizeSubject(subject: string): string {
  let rest = typeof subject === 'string' ? subject : '';
  for (let match = ANY.exec(rest); match; match = ANY.exec(rest)) {
    rest = rest.slice(match[0].length);
  }
  return rest.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** True when the subject starts with a reply prefix (`Re:`, `AW:`, `SV:`, `Antw:`, `回复:`...). */
export function hasReplyPrefix(subject: string): boolean {
  return typeof subject === 'string' && REPLY.test(subject);
}

/** True when the subject starts with a forward prefix (`Fwd:`, `Fw:`, `WG:`, `TR:`, `RV:`, `转发:`...). */
export function hasForwardPrefix(subject: string): boolean {
  return typeof subject === 'string' && FORWARD.test(subject);
}
