import type { ChildNode, Document, Element } from 'domhandler';
import { isTag, isText } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Rgb } from './colours.js';
import { backgroundColour, indistinguishable, parseColour } from './colours.js';
import type { Declarations, StyleSheet } from './css.js';
import { RuleIndex, declarationsOf, parseStyleSheet } from './css.js';
import { MAX_NESTING, nestedDeeperThan } from '../html-text.js';

/** Never body text: what is inside them is not shown as text by any mail reader. */
const NOT_TEXT = new Set(['head', 'script', 'style', 'template', 'title', 'meta', 'link', 'xml']);
const BLOCK = new Set(
  'address article aside blockquote br center div dl dt dd footer form h1 h2 h3 h4 h5 h6 header hr li ol p pre section table td th tr ul'.split(
    ' ',
  ),
);
const WHITE: Rgb = { r: 255, g: 255, b: 255, a: 1 };
const BLACK: Rgb = { r: 0, g: 0, b: 0, a: 1 };
/** Off-screen: moved or indented this far out of the page. */
const OFF_SCREEN_PX = 500;

export interface Link {
  href: string;
  /** The link's text as a reader sees it. */
  text: string;
}

/** What the html shows and what it hides. */
export interface HtmlReading {
  /** Runs of hidden text, whitespace collapsed, in document order. */
  hidden: string[];
  /** The text a reader sees. */
  visible: string;
  links: Link[];
}

/** Inherited along the tree: under the document's own rules, or with its @media rules too. */
interface Inherited {
  fontPx: number;
  colour: Rgb;
  /** null: no background found yet (the page's: white unless the sheet says otherwise). */
  background: Rgb | 'unknown' | null;
  /** The text's colour was given (black by default is not taken for a hiding colour). */
  colourSet: boolean;
  invisible: boolean;
}

interface Walk {
  sheet: StyleSheet;
  rules: RuleIndex;
  allRules: RuleIndex;
  reading: HtmlReading;
  visible: string[];
  run: string[];
  /** Hidden nodes, to take out of the document (withoutHidden). */
  remove: ChildNode[];
}

/**
 * Html past these is not read (htmlparser2 takes time quadratic in the nesting depth, see
 * html-text.ts); real mail is far below both.
 */
const MAX_READ_CHARS = 2 * 1024 * 1024;
const readable = (html: string): boolean =>
  html.length <= MAX_READ_CHARS && !nestedDeeperThan(html, MAX_NESTING);

/** Reads the html on its parsed DOM; nothing found in html too large or too deep to read. */
export function readHtml(html: string): HtmlReading {
  if (!readable(html)) return { hidden: [], visible: '', links: [] };
  return walkDocument(parseDocument(html)).reading;
}

/** Takes out of `doc` every node a reader cannot see; answers how many it took. */
export function removeHidden(doc: Document): number {
  const { remove } = walkDocument(doc);
  for (const node of remove) DomUtils.removeElement(node);
  return remove.length;
}

/** The html without what a reader cannot see (the same html when nothing is hidden). */
export function withoutHidden(html: string): string {
  if (!readable(html)) return html;
  const doc = parseDocument(html);
  return removeHidden(doc) === 0 ? html : DomUtils.getOuterHTML(doc, { encodeEntities: 'utf8' });
}

function walkDocument(doc: Document): Walk {
  const styles = DomUtils.findAll((el) => el.name === 'style', doc.children).map((el) =>
    DomUtils.textContent(el),
  );
  const sheet = parseStyleSheet(styles);
  const walk: Walk = {
    sheet,
    rules: new RuleIndex(sheet.rules),
    allRules: new RuleIndex([...sheet.rules, ...sheet.mediaRules]),
    reading: { hidden: [], visible: '', links: [] },
    visible: [],
    run: [],
    remove: [],
  };
  const start: Inherited = {
    fontPx: 16,
    colour: BLACK,
    background: null,
    colourSet: false,
    invisible: false,
  };
  visit(doc.children, walk, start, start);
  flushRun(walk);
  walk.reading.visible = walk.visible.join('').replace(/[ \t]+/g, ' ');
  return walk;
}

function visit(nodes: readonly ChildNode[], walk: Walk, base: Inherited, media: Inherited): void {
  for (const node of nodes) {
    if (isText(node)) visitText(node, walk, base, media);
    else if (isTag(node) && !NOT_TEXT.has(node.name)) visitElement(node, walk, base, media);
  }
}

function visitText(node: ChildNode & { data: string }, walk: Walk, base: Inherited, media: Inherited): void {
  if (node.data.trim() === '') {
    walk.visible.push(' ');
    return;
  }
  if (textHidden(base, walk.sheet) && textHidden(media, walk.sheet)) {
    walk.run.push(node.data);
    walk.remove.push(node);
    return;
  }
  flushRun(walk);
  walk.visible.push(node.data);
}

function visitElement(el: Element, walk: Walk, base: Inherited, media: Inherited): void {
  const own = declarationsOf(el, walk.rules);
  const withMedia = walk.sheet.mediaRules.length ? declarationsOf(el, walk.allRules) : own;
  if (el.attribs.hidden !== undefined || (hidesSubtree(own) && hidesSubtree(withMedia))) {
    walk.run.push(' ', DomUtils.textContent(el), ' ');
    walk.remove.push(el);
    return;
  }
  const block = BLOCK.has(el.name);
  if (block) walk.visible.push('\n');
  const href = el.name === 'a' ? el.attribs.href : undefined;
  const linkStart = walk.visible.length;
  visit(el.children, walk, inherit(base, el, own), inherit(media, el, withMedia));
  if (href) walk.reading.links.push({ href, text: walk.visible.slice(linkStart).join('').trim() });
  if (block) walk.visible.push('\n');
}

function flushRun(walk: Walk): void {
  const text = walk.run.join('').replace(/\s+/g, ' ').trim();
  walk.run = [];
  if (text) walk.reading.hidden.push(text);
}

function textHidden(state: Inherited, sheet: StyleSheet): boolean {
  if (state.invisible || state.fontPx <= 1 || state.colour.a < 0.1) return true;
  if (!state.colourSet || sheet.unmatchedColours) return false;
  const background = state.background ?? WHITE;
  return background !== 'unknown' && indistinguishable(state.colour, background);
}

const value = (d: Declarations, name: string): string => d.get(name)?.value ?? '';

/** Lengths in px (em and rem as 16 px); null when not a length. */
function px(text: string, parentPx = 16): number | null {
  const m = /^(-?\d*\.?\d+)(px|pt|em|rem|%)?$/.exec(text.trim());
  if (!m) return null;
  const n = parseFloat(m[1]!);
  switch (m[2]) {
    case 'pt':
      return (n * 4) / 3;
    case 'em':
      return n * parentPx;
    case 'rem':
      return n * 16;
    case '%':
      return (n * parentPx) / 100;
    default:
      return n;
  }
}

const isZero = (text: string): boolean => px(text) === 0;

function hidesSubtree(d: Declarations): boolean {
  if (value(d, 'display') === 'none') return true;
  const opacity = parseFloat(value(d, 'opacity'));
  if (!Number.isNaN(opacity) && opacity <= 0.05) return true;
  const clipped = /hidden|clip/.test(value(d, 'overflow'));
  if (clipped && ['max-height', 'height', 'max-width', 'width'].some((p) => isZero(value(d, p)))) return true;
  if (/rect\(\s*0(px)?[\s,]+0(px)?[\s,]+0(px)?[\s,]+0(px)?\s*\)/.test(value(d, 'clip'))) return true;
  const indent = px(value(d, 'text-indent'));
  if (indent !== null && indent <= -OFF_SCREEN_PX) return true;
  if (/^(absolute|fixed|relative)$/.test(value(d, 'position'))) {
    for (const side of ['left', 'top', 'right', 'bottom', 'margin-left', 'margin-top']) {
      const at = px(value(d, side));
      if (at !== null && at <= -OFF_SCREEN_PX) return true;
    }
  }
  return false;
}

function fontPxOf(d: Declarations, parentPx: number): number {
  const size = px(value(d, 'font-size'), parentPx);
  if (size !== null) return size;
  // The shorthand: `font: 0/0 a` is the classic way of hiding text.
  const shorthand = value(d, 'font')
    .split(/\s+/)
    .map((token) => px(token.split('/')[0]!, parentPx))
    .find((n) => n !== null);
  return shorthand ?? parentPx;
}

function inherit(state: Inherited, el: Element, d: Declarations): Inherited {
  const next: Inherited = { ...state, fontPx: fontPxOf(d, state.fontPx) };
  const colour = parseColour(value(d, 'color') || (el.name === 'font' ? (el.attribs.color ?? '') : ''));
  if (colour) {
    next.colour = colour;
    next.colourSet = true;
  }
  const visibility = value(d, 'visibility');
  if (visibility) next.invisible = visibility === 'hidden' || visibility === 'collapse';
  const background = backgroundOf(el, d);
  if (background) next.background = background;
  return next;
}

function backgroundOf(el: Element, d: Declarations): Rgb | 'unknown' | null {
  if (el.attribs.background || value(d, 'background-image').includes('url(')) return 'unknown';
  const shorthand = value(d, 'background');
  const fromShorthand = shorthand ? backgroundColour(shorthand) : null;
  if (fromShorthand === 'image') return 'unknown';
  const colour =
    parseColour(value(d, 'background-color')) ?? fromShorthand ?? parseColour(el.attribs.bgcolor ?? '');
  // A see-through background shows what is under it: take it as unknown rather than guess.
  if (colour && colour.a < 1) return colour.a === 0 ? null : 'unknown';
  return colour;
}
