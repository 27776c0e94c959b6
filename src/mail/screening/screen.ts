import type { ParsedEmail } from '../types.js';
import { readHtml } from './html-reading.js';
import { instructionLanguages } from './instructions.js';
import { hasInvisibleCharacters, withoutInvisible } from './invisible.js';
import { mismatchedLinks } from './links.js';

export const SCREENING_REASONS = [
  'hidden_text',
  'invisible_characters',
  'link_mismatch',
  'instructions_to_agent',
  'auth_failed',
  'spam',
] as const;
export type ScreeningReason = (typeof SCREENING_REASONS)[number];

/** What screening says of a received message (contract 16). */
export interface Screening {
  verdict: 'clear' | 'review';
  reasons: ScreeningReason[];
  /** The hidden text found, cut to HIDDEN_MAX characters; empty when none. */
  hidden: string;
}

export const HIDDEN_MAX = 2048;
export const CLEAR: Screening = { verdict: 'clear', reasons: [], hidden: '' };

/**
 * Hidden text that is a newsletter's preheader (the line an inbox shows beside the subject, hidden
 * in the body), a screen reader's label or a mobile-only line rather than a message kept from the
 * reader: every run at most this long, all of them together at most HIDDEN_BENIGN_TOTAL, and none
 * addressed to a model. Real preheaders are 40 to 150 characters.
 */
const HIDDEN_BENIGN_RUN = 200;
const HIDDEN_BENIGN_TOTAL = 400;
/** Shorter hidden runs are not looked for in the text part: a word or two is in any text. */
const REMOVABLE_MIN = 20;

/** A flag's tag sequence, or a run of tag characters outside one (invisible ASCII). */
const FLAG_OR_TAG_RUN = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|[\u{E0001}\u{E0020}-\u{E007F}]+/gu;
const isFlag = (match: string): boolean => match.startsWith('\u{1F3F4}');

export function screeningOf(reasons: Iterable<ScreeningReason>, hidden: string): Screening {
  const set = new Set(reasons);
  const ordered = SCREENING_REASONS.filter((r) => set.has(r));
  return {
    verdict: ordered.length ? 'review' : 'clear',
    reasons: ordered,
    hidden: hidden.slice(0, HIDDEN_MAX),
  };
}

/** `screening` with one more reason (the verdict follows). */
export function withReason(screening: Screening, reason: ScreeningReason): Screening {
  return screeningOf([...screening.reasons, reason], screening.hidden);
}

function isBenign(runs: readonly string[]): boolean {
  const lengths = runs.map((run) => withoutInvisible(run).replace(/\s+/g, ' ').trim().length);
  return (
    lengths.every((n) => n <= HIDDEN_BENIGN_RUN) && lengths.reduce((a, b) => a + b, 0) <= HIDDEN_BENIGN_TOTAL
  );
}

function decodeTags(text: string): string[] {
  return [...text.matchAll(FLAG_OR_TAG_RUN)]
    .filter((m) => !isFlag(m[0]))
    .map((m) => withoutInvisible(m[0]).trim())
    .filter(Boolean);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text without the hidden runs it repeats (a text part made from the html carries them too). */
function withoutRuns(text: string, runs: readonly string[]): string {
  let out = text.replace(FLAG_OR_TAG_RUN, (m) => (isFlag(m) ? m : ''));
  for (const run of runs) {
    const words = run.split(/\s+/).filter(Boolean);
    if (run.length < REMOVABLE_MIN || words.length === 0) continue;
    out = out.replace(new RegExp(words.map(escape).join('[\\s\\u00a0]+'), 'g'), '');
  }
  return out;
}

/**
 * Screens a parsed message's content (contract 16, all reasons but `auth_failed` and `spam`,
 * which the filing adds: withAuthResults, withSpamAction), and takes the hidden text out of its
 * text. Pure and linear in the message: it runs on the parse threads.
 */
export function screenParsed(parsed: ParsedEmail): ParsedEmail {
  const reasons = new Set<ScreeningReason>();
  const html = parsed.html ? readHtml(parsed.html) : { hidden: [], visible: '', links: [] };
  const tagged = decodeTags(`${parsed.subject}\n${parsed.text}\n${html.visible}`);
  const everything = [parsed.subject, parsed.text, html.visible, ...html.hidden, ...tagged].join('\n');
  const addressed = instructionLanguages(everything).length > 0;
  if (addressed) reasons.add('instructions_to_agent');
  const hiddenCounts =
    html.hidden.length > 0 &&
    (!isBenign(html.hidden) || instructionLanguages(html.hidden.join('\n')).length > 0);
  if (hiddenCounts) reasons.add('hidden_text');
  if (tagged.length || hasInvisibleCharacters(`${parsed.subject}\n${parsed.text}\n${html.visible}`))
    reasons.add('invisible_characters');
  if (mismatchedLinks(html.links).length) reasons.add('link_mismatch');
  const runs = hiddenCounts ? html.hidden : [];
  const screening = screeningOf(reasons, [...runs, ...tagged].join('\n'));
  const text = runs.length || tagged.length ? withoutRuns(parsed.text, runs) : parsed.text;
  return { ...parsed, text, screening };
}

/** Adds `auth_failed` when the message failed DMARC (the results the SMTP door recorded). */
export function withAuthResults(screening: Screening, authResults: unknown): Screening {
  const dmarc = (authResults as { dmarc?: { result?: unknown } } | null | undefined)?.dmarc;
  return dmarc?.result === 'fail' ? withReason(screening, 'auth_failed') : screening;
}

/** Adds `spam` when rspamd's action was other than `no action` (the hook for rspamd's result). */
export function withSpamAction(screening: Screening, action: string | null | undefined): Screening {
  return action && action !== 'no action' ? withReason(screening, 'spam') : screening;
}
