const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/**
 * Whether JSON text nests objects and arrays more than `max` levels deep, found in one pass
 * without parsing (strings are skipped whole, so a large base64 attachment costs an indexOf).
 * Text that is not JSON gets some answer; JSON.parse refuses it afterwards anyway.
 */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (OPENERS.has(ch)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(ch)) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`, or -1 when it never ends. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
