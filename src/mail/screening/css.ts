/**
 * The little CSS that mail uses, read well enough to tell whether text shows: inline `style`
 * attributes, and `<style>` rules whose selectors are simple (`p`, `.c`, `#i`, `td.c`, `.a.b`).
 * Rules with other selectors (descendants, attributes, pseudo-classes) are skipped; rules inside
 * `@media` are kept apart, since they apply on some screens only.
 */

export interface Declaration {
  value: string;
  important: boolean;
}

export type Declarations = Map<string, Declaration>;

export interface SimpleSelector {
  tag: string | null;
  id: string | null;
  classes: string[];
}

export interface Rule {
  selector: SimpleSelector;
  declarations: Declarations;
  /** Tag 1, class 10, id 100: enough to order simple selectors. */
  specificity: number;
  /** Its place in the document: of two rules as specific, the later wins. */
  order: number;
}

export interface StyleSheet {
  rules: Rule[];
  /** Rules inside @media: what some screens add (mobile-only content a media query shows). */
  mediaRules: Rule[];
  /** A rule outside @media this reader cannot match sets a colour or background: colours are unknown. */
  unmatchedColours: boolean;
}

export function parseDeclarations(text: string): Declarations {
  const out: Declarations = new Map();
  for (const part of stripComments(text).split(';')) {
    const colon = part.indexOf(':');
    if (colon <= 0) continue;
    const name = part.slice(0, colon).trim().toLowerCase();
    let value = part
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    const important = /!\s*important$/.test(value);
    if (important) value = value.replace(/!\s*important$/, '').trim();
    const known = out.get(name);
    if (!known || important || !known.important) out.set(name, { value, important });
  }
  return out;
}

const SIMPLE = /^([a-z][a-z0-9]*|\*)?((?:[.#][\w-]+)*)$/i;

function parseSelector(text: string): SimpleSelector | null {
  const match = SIMPLE.exec(text.trim());
  if (!match || text.trim() === '') return null;
  const tag = match[1] && match[1] !== '*' ? match[1].toLowerCase() : null;
  const parts = match[2]!.match(/[.#][\w-]+/g) ?? [];
  const ids = parts.filter((p) => p.startsWith('#')).map((p) => p.slice(1));
  if (ids.length > 1) return null;
  return { tag, id: ids[0] ?? null, classes: parts.filter((p) => p.startsWith('.')).map((p) => p.slice(1)) };
}

const specificityOf = (s: SimpleSelector): number =>
  (s.id ? 100 : 0) + s.classes.length * 10 + (s.tag ? 1 : 0);

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ');
}

/** The rules of one `{...}` level: `selectors { declarations }` and nested at-rule blocks. */
function readBlock(text: string, sheet: StyleSheet, inMedia: boolean): void {
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{', at);
    if (open < 0) return;
    const prelude = text.slice(at, open).trim();
    const close = matchingBrace(text, open);
    const body = text.slice(open + 1, close < 0 ? text.length : close);
    at = close < 0 ? text.length : close + 1;
    if (prelude.startsWith('@')) {
      // @media and @supports hold rules some screens use; @font-face, @keyframes... none.
      if (/^@(media|supports)\b/i.test(prelude)) readBlock(body, sheet, true);
      continue;
    }
    addRules(prelude, parseDeclarations(body), sheet, inMedia);
  }
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * Rules read at most: real mail has a few hundred, and each element is matched against the rules
 * its tag, id and classes name (RuleIndex), so a sheet of many thousands costs little anyway.
 */
const MAX_RULES = 2000;

function addRules(prelude: string, declarations: Declarations, sheet: StyleSheet, inMedia: boolean): void {
  for (const text of prelude.split(',')) {
    const selector = parseSelector(text);
    if (!selector || sheet.rules.length + sheet.mediaRules.length >= MAX_RULES) {
      if (!inMedia && [...declarations.keys()].some((k) => k.startsWith('background') || k === 'color'))
        sheet.unmatchedColours = true;
      continue;
    }
    const order = sheet.rules.length + sheet.mediaRules.length;
    const rule = { selector, declarations, specificity: specificityOf(selector), order };
    (inMedia ? sheet.mediaRules : sheet.rules).push(rule);
  }
}

/** The rules of the document's `<style>` elements, in document order. */
export function parseStyleSheet(texts: readonly string[]): StyleSheet {
  const sheet: StyleSheet = { rules: [], mediaRules: [], unmatchedColours: false };
  for (const text of texts) readBlock(stripComments(text).replace(/<!--|-->/g, ' '), sheet, false);
  return sheet;
}

export interface Matchable {
  name: string;
  attribs: Record<string, string>;
}

export function matches(selector: SimpleSelector, el: Matchable): boolean {
  if (selector.tag && selector.tag !== el.name) return false;
  if (selector.id && selector.id !== el.attribs.id) return false;
  if (selector.classes.length === 0) return true;
  const classes = (el.attribs.class ?? '').split(/\s+/);
  return selector.classes.every((c) => classes.includes(c));
}

/** Rules by the one name each must match: its id, else its first class, else its tag, else `*`. */
export class RuleIndex {
  private readonly byKey = new Map<string, Rule[]>();

  constructor(rules: readonly Rule[]) {
    for (const rule of rules) {
      const { id, classes, tag } = rule.selector;
      const key = id ? `#${id}` : classes[0] ? `.${classes[0]}` : (tag ?? '*');
      const list = this.byKey.get(key);
      if (list) list.push(rule);
      else this.byKey.set(key, [rule]);
    }
  }

  /** The rules that may match `el`, each once. */
  candidates(el: Matchable): Rule[] {
    const keys = new Set([
      '*',
      el.name,
      ...(el.attribs.class ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((c) => `.${c}`),
    ]);
    if (el.attribs.id) keys.add(`#${el.attribs.id}`);
    return [...keys].flatMap((key) => this.byKey.get(key) ?? []);
  }
}

/**
 * An element's own declarations: the matching rules by specificity (then document order), then
 * its style attribute, which only an `!important` rule outranks.
 */
export function declarationsOf(el: Matchable, rules: RuleIndex): Declarations {
  const matching = rules
    .candidates(el)
    .filter((r) => matches(r.selector, el))
    .sort((a, b) => a.specificity - b.specificity || a.order - b.order);
  const out: Declarations = new Map();
  for (const rule of matching) for (const [k, v] of rule.declarations) setDeclaration(out, k, v);
  const inline = el.attribs.style;
  if (inline) for (const [k, v] of parseDeclarations(inline)) setDeclaration(out, k, v);
  return out;
}

/** A later declaration wins unless the one before was `!important` and it is not. */
function setDeclaration(out: Declarations, name: string, value: Declaration): void {
  const known = out.get(name);
  if (!known || value.important || !known.important) out.set(name, value);
}
