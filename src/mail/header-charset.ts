const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const FALLBACK = 'windows-1252';

/** Where the header block ends: at its blank line, or the whole message when it has none. */
function headerEnd(raw: Buffer): number {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const ends = [crlf, lf].filter((i) => i >= 0);
  return ends.length > 0 ? Math.min(...ends) : raw.length;
}

/** The top-level Content-Type charset, unless it claims UTF-8 or ASCII (which the bytes just disproved). */
function declaredCharset(head: string): string | null {
  const unfolded = head.replace(/\r?\n(?=[ \t])/g, '');
  const charset = /^content-type:[^\n]*?charset\s*=\s*"?([\w.:-]+)/im.exec(unfolded)?.[1]?.toLowerCase();
  if (!charset || /^(utf-?8|us-ascii|ascii)$/.test(charset)) return null;
  return charset;
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder(FALLBACK).decode(bytes);
  }
}

function isUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Raw 8-bit header bytes that are not UTF-8 (Latin-1 subjects and names from old mailers) read
 * in the message's declared charset, else Windows-1252 (Latin-1 with the printable C1 range,
 * what browsers assume too), and handed on as UTF-8; the parser alone would make each U+FFFD.
 * Line by line, so UTF-8 lines beside them stay right; the body is left as it is.
 */
export function headersAsUtf8(raw: Buffer): Buffer {
  const end = headerEnd(raw);
  const head = raw.subarray(0, end);
  if (!head.some((b) => b >= 0x80) || isUtf8(head)) return raw;
  const charset = declaredCharset(head.toString('latin1')) ?? FALLBACK;
  const lines: Buffer[] = [];
  for (let start = 0; start < head.length;) {
    const nl = head.indexOf(0x0a, start);
    const stop = nl < 0 ? head.length : nl + 1;
    const line = head.subarray(start, stop);
    lines.push(isUtf8(line) ? line : Buffer.from(decode(line, charset), 'utf8'));
    start = stop;
  }
  return Buffer.concat([...lines, raw.subarray(end)]);
}
