/**
 * How a reply's lines are told apart: where the quoted history starts (an "On ... wrote:" line in
 * several languages, Outlook's "From: / Sent: / Subject:" header block, an "Original message"
 * marker) and where a signature starts ("-- ", "Sent from my iPhone"). Shared by the text and the
 * html extraction, which both reduce a message to lines first.
 */

/** Lines longer than this are body text, never a header (and no regex runs over them). */
const HEADER_LINE_MAX = 400;

/** "On <date>, <name> wrote:" and its translations: a lead word, then the verb, ending in ':'. */
const ATTRIBUTION_LEAD =
  /^>?\s*(?:On|Am|Le|El|Op|Il|Em|Den|På|W dniu|Dnia|Dne|V|Dňa|Στις|El día)\s.{0,300}?(?<!\p{L})(?:wrote|schrieb|a écrit|escribió|escribio|schreef|ha scritto|escreveu|skrev|napisał|napisała|napisał\(a\)|napsal|napísal|kirjoitti|έγραψε)(?![\p{L}(]).{0,200}:$/iu;
/** "Alice <alice@example.com> schrieb am 03.03.2026:" and the like: an address, then the verb. */
const ATTRIBUTION_ADDRESS =
  /^>?\s*.{0,200}@.{0,200}(?<!\p{L})(?:wrote|schrieb|a écrit|escribió|schreef|ha scritto|escreveu|skrev)(?!\p{L}).{0,100}:$/iu;
/** Gmail's short form: "2026-03-03 10:02 GMT+01:00 Alice <alice@example.com>:". */
const ATTRIBUTION_ISO = /^>?\s*\d{4}-\d{2}-\d{2} .{0,200}<[^<>\s]+@[^<>\s]+>:$/u;

const ORIGINAL_MARKER =
  /^>?\s*-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Originalnachricht|Message d'origine|Message d’origine|Mensaje original|Oorspronkelijk bericht|Origineel bericht|Messaggio originale|Mensagem original|Originalmeddelande|Opprinnelig melding|Oprindelig meddelelse|Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Doorgestuurd bericht|Messaggio inoltrato)\s*-{2,}$/iu;
const FORWARD_INTRO =
  /^(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|Inicio del mensaje reenviado|Begin doorgestuurd bericht)\s*:$/iu;

/** The first line of Outlook's header block, and the lines that must follow it for it to be one. */
const OUTLOOK_FROM = /^\*?(?:From|Von|De|Van|Da|Från|Fra|Od|Lähettäjä|Feladó)\s*:\*?\s*\S/iu;
const OUTLOOK_DATE =
  /^\*?(?:Sent|Date|Gesendet|Datum|Envoyé|Enviado(?: el)?|Fecha|Verzonden|Inviato|Data|Skickat|Sendt|Wysłano|Lähetetty)\s*:/iu;
const OUTLOOK_TO_OR_SUBJECT =
  /^\*?(?:To|Subject|An|Betreff|À|A|Objet|Para|Asunto|Aan|Onderwerp|Oggetto|Assunto|Till|Til|Ämne|Emne|Do|Temat|Cc)\s*:/iu;
/** Outlook's rule above the header block, or a plain one. */
const SEPARATOR = /^(?:_{8,}|-{8,})$/;

/** "-- " (RFC 3676) and the "--" that clients left without its space. */
const SIGNATURE_DELIMITER = /^--\s*$/;
const MOBILE_SIGNATURE =
  /^(?:Sent from my .{1,40}|Sent from (?:Outlook|Mail|Yahoo Mail|Gmail|Proton Mail|ProtonMail)\b.{0,60}|Get Outlook for .{1,40}|Sent with Proton Mail.{0,60}|Sent via .{1,40}|Envoyé de mon .{1,40}|Envoyé depuis mon .{1,40}|Envoyé à partir de .{1,60}|Von meinem .{1,40} gesendet|Gesendet von meinem .{1,40}|Gesendet mit .{1,40}|Enviado desde mi .{1,40}|Enviado do meu .{1,40}|Verzonden vanaf mijn .{1,40}|Verstuurd vanaf mijn .{1,40}|Verzonden met .{1,40}|Inviato da .{1,40}|Skickat från min .{1,40}|Sendt fra min .{1,40})$/iu;

/** A line as the markers see it: trimmed, and with tabs and no-break spaces made single plain spaces. */
export function markerLine(line: string): string {
  if (line.length > HEADER_LINE_MAX * 2) return line;
  // Single-character searches are cheap; most lines need the trim alone.
  const unusual = line.includes('\t') || line.includes('\u00a0');
  return unusual ? line.replace(/\s+/g, ' ').trim() : line.trim();
}

export function hasContent(lines: readonly string[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (lines[i] !== '') return true;
  return false;
}

export function isQuoted(line: string): boolean {
  return line.startsWith('>');
}

/**
 * The first line of an attribution that ends at line `k` ("...wrote:"), or -1. Mail clients wrap
 * a long one over up to three lines; the shortest reading wins, so a sentence above it that
 * happens to start with "Le" or "On" is not taken for part of it.
 */
function attributionEndingAt(lines: readonly string[], k: number): number {
  const last = lines[k]!;
  if (last.length > HEADER_LINE_MAX || !last.endsWith(':')) return -1;
  let joined = last;
  for (let n = 1; n <= 3; n++) {
    const start = k - n + 1;
    if (n > 1) {
      const line = lines[start];
      if (line === undefined || line === '' || line.length > HEADER_LINE_MAX) break;
      joined = `${line} ${joined.replace(/^>\s*/, '')}`;
    }
    if (ATTRIBUTION_LEAD.test(joined)) return start;
  }
  return ATTRIBUTION_ADDRESS.test(last) || ATTRIBUTION_ISO.test(last) ? k : -1;
}

/** Outlook's "From: ... Sent: ... To: ... Subject: ..." block starting at line `i`. */
function outlookHeaderAt(lines: readonly string[], i: number): boolean {
  const first = lines[i]!;
  if (first.length > HEADER_LINE_MAX || !OUTLOOK_FROM.test(first)) return false;
  let date = false;
  let other = false;
  for (let j = i + 1, seen = 0; j < lines.length && seen < 6; j++) {
    const line = lines[j]!;
    if (line === '') continue;
    seen++;
    if (OUTLOOK_DATE.test(line)) date = true;
    else if (OUTLOOK_TO_OR_SUBJECT.test(line)) other = true;
    if (date && other) return true;
  }
  return false;
}

export interface History {
  /** The first line of the quoted history. */
  start: number;
  /** The line after an attribution ("On ... wrote:"); absent for a header block or a marker. */
  afterAttribution?: number;
}

/**
 * Where the quoted history starts in lines given by `markerLine`, or undefined. A separator rule
 * right above Outlook's header block belongs to the history.
 */
export function findHistory(lines: readonly string[]): History | undefined {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Every marker has a colon or a dash rule: most body lines are passed over here.
    if (line === '' || (!line.includes(':') && !line.includes('--'))) continue;
    const attribution = attributionEndingAt(lines, i);
    if (attribution >= 0) return { start: attribution, afterAttribution: i + 1 };
    if (line.length > HEADER_LINE_MAX) continue;
    if (ORIGINAL_MARKER.test(line) || FORWARD_INTRO.test(line)) return { start: i };
    if (outlookHeaderAt(lines, i)) {
      let start = i;
      for (let j = i - 1; j >= 0; j--) {
        if (lines[j] === '') continue;
        if (SEPARATOR.test(lines[j]!)) start = j;
        break;
      }
      return { start };
    }
  }
  return undefined;
}

/**
 * Where the signature starts in the new content, or `lines.length` when there is none: the first
 * "-- " delimiter with content above it, else a "Sent from my iPhone" line that ends the content.
 */
export function signatureStart(lines: readonly string[]): number {
  let content = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (content && SIGNATURE_DELIMITER.test(line)) return i;
    if (line !== '') content = true;
  }
  let last = lines.length - 1;
  while (last >= 0 && lines[last] === '') last--;
  if (last > 0 && MOBILE_SIGNATURE.test(lines[last]!)) return last;
  return lines.length;
}
