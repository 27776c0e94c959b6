/**
 * Characters that show nothing, in text a reader sees. Counted so that what real mail carries
 * passes: the zero-width joiners of emoji and of Persian or Indic words, the direction marks of
 * Hebrew and Arabic text, isolates that close, a byte-order mark in front, and the padding of
 * newsletter preheaders (runs of zero-width non-joiners between spaces).
 */

/** Tag characters (U+E0000 block): invisible ASCII, a known way of hiding text from people. */
const TAG = /[\u{E0001}\u{E0020}-\u{E007F}]/u;
/** A flag's tag sequence (England, Scotland, Wales): the black flag, tags, the cancel tag. */
const FLAG_TAGS = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;
/** Embeddings and overrides: they reorder what a reader sees against what a program reads. */
const BIDI_OVERRIDE = /[\u202A-\u202E]/;
const ISOLATE_OPEN = /[\u2066-\u2068]/g;
const ISOLATE_CLOSE = /\u2069/g;
/** Zero-width characters inside a word: a word split so that filters and people miss it. */
const ZERO_WIDTH_IN_WORD = /(?<=\p{L})(?:[\u200B\u2060-\u2064\uFEFF\u180E]|\u034F)+(?=\p{L})/gu;
const JOINER_IN_LATIN_WORD = /(?<=[A-Za-z])[\u200C\u200D]+(?=[A-Za-z])/g;
/** Two split words: one may be a copy and paste from a web page. */
const SPLIT_WORDS_MIN = 2;

export function hasInvisibleCharacters(text: string): boolean {
  const withoutFlags = text.replace(FLAG_TAGS, '');
  if (TAG.test(withoutFlags) || BIDI_OVERRIDE.test(text)) return true;
  if ((text.match(ISOLATE_OPEN)?.length ?? 0) !== (text.match(ISOLATE_CLOSE)?.length ?? 0)) return true;
  const split =
    (text.match(ZERO_WIDTH_IN_WORD)?.length ?? 0) + (text.match(JOINER_IN_LATIN_WORD)?.length ?? 0);
  return split >= SPLIT_WORDS_MIN;
}

/** Every character that shows nothing, for reading text as a model would. */
const ALL_INVISIBLE =
  /(?:[\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u180E\u00AD\u{E0000}-\u{E007F}]|\u034F)/gu;

/** The text with its invisible characters taken out (tag characters read as the ASCII they stand for). */
export function withoutInvisible(text: string): string {
  return text
    .replace(/[\u{E0020}-\u{E007E}]/gu, (c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000))
    .replace(ALL_INVISIBLE, '');
}
