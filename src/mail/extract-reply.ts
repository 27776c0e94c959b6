import { findHistory, hasContent, isQuoted, markerLine, signatureStart } from './reply-markers.js';

/**
 * The new content of a plain-text message: what its author wrote, without the quoted history
 * (a trailing `>` block, or everything from an "On ... wrote:" line or Outlook's header block on)
 * and without the signature. A bottom-posted reply keeps what follows the quote; quotes with new
 * text after them (an interleaved reply) stay, as the context of the answers. When nothing is
 * left (a forward without a note) the text is returned whole.
 *
 * Its answer, cut as a list shows it, is stored with each message when it is filed
 * (messages.list_extracted_text, migrations 013 and 017): a change here (or in reply-markers.ts)
 * that changes an answer ships with a resumable refill of that column and `preview` from the
 * stored texts (docs/decisions/list-performance.md, "Stored list columns").
 */
export function extractReplyText(text: string): string {
  const raw = (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).split('\n');
  const lines = raw.map(markerLine);
  let from = 0;
  let to = lines.length;
  const history = findHistory(lines);
  if (history) {
    if (hasContent(lines, 0, history.start)) to = history.start;
    else if (history.afterAttribution !== undefined) from = history.afterAttribution;
  }
  [from, to] = withoutOuterQuotes(lines, from, to);
  to = from + signatureStart(lines.slice(from, to));
  const kept = raw
    .slice(from, to)
    .join('\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  return kept === '' ? text.trim() : kept;
}

/**
 * The range without a trailing block of `>` lines, and without a leading one unless more quotes
 * follow (then the quotes are the context of interleaved answers and stay). Blank lines between
 * quoted lines belong to the block.
 */
function withoutOuterQuotes(lines: readonly string[], from: number, to: number): [number, number] {
  let end = to;
  for (let i = to - 1; i >= from; i--) {
    const line = lines[i]!;
    if (line !== '' && !isQuoted(line)) break;
    if (isQuoted(line)) end = i;
  }
  let start = from;
  for (let i = from; i < end; i++) {
    const line = lines[i]!;
    if (line !== '' && !isQuoted(line)) break;
    if (isQuoted(line)) start = i + 1;
  }
  for (let i = start; i < end; i++) if (isQuoted(lines[i]!)) return [from, end];
  return [start, end];
}
