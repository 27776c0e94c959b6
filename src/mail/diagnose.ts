import libmime from 'libmime';
import { boundaryOf, linesOfBytes, multipartBoundary } from './mime-lines.js';

/** Past this many distinct charsets a message is not asked about more (each check builds a decoder). */
const MAX_CHARSETS_CHECKED = 50;
const CONTENT_TYPE = /^content-type:/i;
const BASE64_CTE = /^content-transfer-encoding:[ \t]*"?base64"?[ \t]*$/i;
const BASE64_LINE = /^[A-Za-z0-9+/]*(=*)$/;

/** One base64 body being read: valid until a character says otherwise. */
class Base64Body {
  private padding = 0;
  valid = true;

  add(line: string): void {
    if (!this.valid) return;
    const compact = line.replace(/\s+/g, '');
    if (compact === '') return;
    const match = BASE64_LINE.exec(compact);
    if (!match || this.padding > 0) {
      this.valid = false;
      return;
    }
    this.padding += match[1]!.length;
    if (this.padding > 2) this.valid = false;
  }
}

/**
 * Problems mailparser reads past without a word: unknown charsets, multipart boundaries that are
 * never closed, base64 parts with characters outside the alphabet. One pass over the lines, so the
 * time grows with the size of the message and nothing else.
 */
export function diagnose(raw: Buffer): string[] {
  const found = new Set<string>();
  const charsets = new Map<string, boolean>();
  const markers = new Map<string, { opened: boolean; closed: boolean }>();
  let contentType: string | null = null;
  let base64: 'header' | Base64Body | null = null;
  let badBase64 = 0;

  const endContentType = (): void => {
    if (contentType === null) return;
    const value = contentType.replace(/\s+/g, ' ').trim();
    contentType = null;
    const charset = /charset\s*=\s*"?([^"';\s]+)/i.exec(value)?.[1];
    if (charset && !charsets.has(charset) && charsets.size < MAX_CHARSETS_CHECKED) {
      const supported = libmime.createDecodeStream(charset).supported !== false;
      charsets.set(charset, supported);
      if (!supported) found.add(`unknown or unsupported charset "${charset.slice(0, 40)}"; decoded as UTF-8`);
    }
    const marker = multipartBoundary(value);
    if (marker && !markers.has(marker)) markers.set(marker, { opened: false, closed: false });
  };
  const endBase64 = (): void => {
    if (base64 instanceof Base64Body && !base64.valid) badBase64++;
    base64 = null;
  };

  for (const { text: line } of linesOfBytes(raw)) {
    if (contentType !== null && /^[ \t]/.test(line)) {
      contentType += ` ${line}`;
      continue;
    }
    endContentType();
    if (line.startsWith('--')) {
      endBase64();
      const boundary = boundaryOf(line, markers);
      const seen = boundary && markers.get(boundary.marker);
      if (seen) {
        seen.opened = true;
        seen.closed ||= boundary.closing;
      }
    } else if (base64 instanceof Base64Body) {
      base64.add(line);
    } else if (base64 === 'header' && line === '') {
      base64 = new Base64Body();
    }
    if (CONTENT_TYPE.test(line)) contentType = line.slice(line.indexOf(':') + 1);
    else if (BASE64_CTE.test(line) && !(base64 instanceof Base64Body)) base64 = 'header';
  }
  endContentType();
  endBase64();

  for (const [marker, seen] of markers) {
    if (seen.opened && !seen.closed)
      found.add(`multipart boundary "${marker.slice(0, 70)}" is never closed; the message may be truncated`);
  }
  if (badBase64) found.add(`invalid base64 data in ${badBase64} MIME part(s); decoded what could be read`);
  return [...found];
}
