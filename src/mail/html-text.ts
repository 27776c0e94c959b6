import { compile } from 'html-to-text';

/**
 * Markup nested deeper than this gets the plain tag strip instead of html-to-text: htmlparser2
 * parses in time quadratic in the nesting depth (mailparser measured 9 s for 200,000 nested
 * `<b>`), and real mail stays far below it (browsers flatten anything past 512).
 */
export const MAX_NESTING = 1000;
/**
 * html-to-text takes about 1 s a megabyte (2 s for table-heavy markup, measured) on the thread
 * that sends; real mail bodies are under 150 KB (Gmail clips at 102 KB). Larger ones, which only
 * a deliberate caller sends, get the linear tag strip so a send cannot stall the server.
 */
const MAX_CONVERT_CHARS = 256 * 1024;
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'wbr',
]);
/** Closed implicitly by their next sibling, so an unclosed run of them does not nest. */
const IMPLIED_END = new Set(['p', 'li', 'dt', 'dd', 'option', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot']);

const convert = compile({
  wordwrap: false,
  selectors: [
    // Links keep their address: `the report [https://...]`, the text alone when they are the same.
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
  limits: { maxDepth: MAX_NESTING },
});

/** The plain text alternative of an html body: blocks as paragraphs, lists as `- ` lines, links with their URLs. */
export function htmlToText(html: string): string {
  const plain = html.length > MAX_CONVERT_CHARS || nestedDeeperThan(html, MAX_NESTING);
  const text = plain ? stripTags(html) : convert(html);
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function nestedDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  for (const [, close, name, selfClosing] of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const tag = name!.toLowerCase();
    if (VOID.has(tag) || IMPLIED_END.has(tag) || selfClosing) continue;
    if (close) depth = Math.max(0, depth - 1);
    else if (++depth > limit) return true;
  }
  return false;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ent: string) => {
    if (ent[0] === '#') {
      const code = ent[1] === 'x' || ent[1] === 'X' ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const name = ent.toLowerCase();
    return Object.hasOwn(ENTITIES, name) ? ENTITIES[name]! : whole;
  });
}

/** Linear in any input: line breaks at block ends, tags dropped, entities decoded. */
function stripTags(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote|pre|table|ul|ol)\s*>/gi, '\n')
    .replace(/<(p|div|h[1-6]|blockquote|pre|table|ul|ol)\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<[^>]*>/g, '')
    .replace(/[ \t\r\f\v]+/g, ' ');
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.trim())
    .join('\n');
}
