import type { ChildNode, Element, ParentNode } from 'domhandler';
import { isTag, isText } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import { removeHidden } from './screening/html-reading.js';
import { findHistory, hasContent, markerLine, signatureStart } from './reply-markers.js';

/** Elements that are quoted history or a signature whatever they say (Gmail, Apple Mail, Thunderbird...). */
function isQuoteOrSignature(el: Element): boolean {
  const cls = ` ${el.attribs.class ?? ''} `;
  return (
    (el.name === 'blockquote' && el.attribs.type?.toLowerCase() === 'cite') ||
    / (?:gmail_quote|gmail_quote_container|gmail_signature|yahoo_quoted|protonmail_quote|moz-cite-prefix|moz-signature) /.test(
      cls,
    ) ||
    el.attribs['data-smartmail'] === 'gmail_signature' ||
    el.attribs.id === 'Signature' ||
    el.attribs.id === 'ms-outlook-mobile-signature'
  );
}

/** Outlook's markers: everything from them on is the message replied to. */
function startsOutlookHistory(el: Element): boolean {
  const id = el.attribs.id;
  return id === 'divRplyFwdMsg' || id === 'appendonsend' || id === 'OLK_SRC_BODY_SECTION';
}

const BLOCK = new Set(
  'address article aside blockquote br center dd div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table tbody td tfoot th thead tr ul'.split(
    ' ',
  ),
);
const HIDDEN = new Set(['head', 'script', 'style', 'template', 'title']);

interface Line {
  text: string;
  /** The first node whose text is on the line. */
  node: ChildNode | undefined;
}

/**
 * The new content of an html message: as `extractReplyText`, reading the same markers on the
 * lines the html renders to, plus the elements that clients put quotes and signatures in. What a
 * reader cannot see (screening's hidden text) is left out. The html is returned whole (without
 * the hidden) when nothing would be left.
 */
export function extractReplyHtml(html: string): string {
  const doc = parseDocument(html);
  const whole = removeHidden(doc) === 0 ? html : DomUtils.getOuterHTML(doc, { encodeEntities: 'utf8' });
  removeMarkedElements(doc);
  let lines = linesOf(doc);
  let texts = lines.map((line) => markerLine(line.text));
  const history = findHistory(texts);
  if (history && hasContent(texts, 0, history.start)) {
    cutFrom(lines[history.start]!.node);
    lines = linesOf(doc);
    texts = lines.map((line) => markerLine(line.text));
  }
  const signature = signatureStart(texts);
  if (signature < lines.length) cutFrom(lines[signature]!.node);
  const left =
    DomUtils.textContent(doc).trim() !== '' || DomUtils.findOne((el) => el.name === 'img', doc.children);
  return left ? DomUtils.getOuterHTML(doc, { encodeEntities: 'utf8' }) : whole;
}

function removeMarkedElements(doc: ParentNode): void {
  const remove: Element[] = [];
  let cut: Element | undefined;
  const visit = (nodes: ChildNode[]) => {
    for (const node of nodes) {
      if (cut || !isTag(node)) continue;
      if (startsOutlookHistory(node)) cut = node;
      else if (isQuoteOrSignature(node)) remove.push(node);
      else visit(node.children);
    }
  };
  visit(doc.children);
  for (const el of remove) DomUtils.removeElement(el);
  if (cut) cutFrom(cut);
}

/** The text of the document as lines, each with the node it starts at. */
function linesOf(doc: ParentNode): Line[] {
  const lines: Line[] = [];
  let current: Line = { text: '', node: undefined };
  const flush = () => {
    if (current.node) lines.push(current);
    current = { text: '', node: undefined };
  };
  const visit = (nodes: ChildNode[]) => {
    for (const node of nodes) {
      if (isText(node)) {
        // Whitespace between blocks starts no line of its own.
        if (!current.node && node.data.trim() === '' && !node.data.includes('\u00a0')) continue;
        current.node ??= node;
        current.text += node.data;
      } else if (isTag(node) && !HIDDEN.has(node.name)) {
        const block = BLOCK.has(node.name);
        if (block) flush();
        visit(node.children);
        if (block) flush();
      }
    }
  };
  visit(doc.children);
  flush();
  return lines;
}

/** Whether `node` is the first thing in its parent that shows (only blank text or comments before it). */
function isFirstShown(node: ChildNode): boolean {
  for (let prev = node.prev; prev; prev = prev.prev) {
    if (isText(prev) ? prev.data.trim() !== '' : isTag(prev) && prev.name !== 'br') return false;
  }
  return true;
}

/**
 * Removes `node` and everything after it in document order. It first climbs to the outermost
 * element that `node` opens (Outlook's bordered header block, a signature's wrapper div).
 */
function cutFrom(start: ChildNode | undefined): void {
  if (!start) return;
  let node: ChildNode = start;
  while (
    node.parent &&
    isTag(node.parent) &&
    !['body', 'html'].includes(node.parent.name) &&
    isFirstShown(node)
  )
    node = node.parent;
  // An <hr> right above the block (Outlook Web's rule) goes with it.
  let prev = node.prev;
  while (prev && isText(prev) && prev.data.trim() === '') prev = prev.prev;
  if (prev && isTag(prev) && prev.name === 'hr') node = prev;
  for (let at: ChildNode | null = node; at;) {
    while (at.next) DomUtils.removeElement(at.next);
    const parent: ParentNode | null = at.parent;
    if (at === node) DomUtils.removeElement(at);
    at = parent && isTag(parent) ? parent : null;
  }
}
