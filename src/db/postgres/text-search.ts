import { searchWordsInOrder, searchWordsOf } from '../search-words.js';

/** PostgreSQL refuses a lexeme of more bytes than this (tsvector input: "word is too long"). */
const MAX_LEXEME_BYTES = 2046;
/** A tsvector holds at most 1 MB; stop short of it (only a pathological text comes near). */
const MAX_DOCUMENT_BYTES = 1_000_000;

/** A word in the text form of a tsquery: quoted, quote and backslash doubled. */
const quoted = (word: string) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The words that index `text` on PostgreSQL (messages_fts.words, migration 029): the distinct
 * words FTS5 makes of it, as they are (no positions, no normalising by PostgreSQL: the words
 * already are), one space between them. FTS5 never makes a word with a space in it, so
 * the index's mailroom_search_prefixes gets them back by splitting on spaces. Words PostgreSQL cannot hold
 * in a tsvector are left out, as its own to_tsvector leaves them out.
 */
export function searchWordsText(text: string): string {
  const kept: string[] = [];
  let bytes = 0;
  for (const word of searchWordsOf(text)) {
    const size = Buffer.byteLength(word);
    if (size > MAX_LEXEME_BYTES) continue;
    bytes += size + 8;
    if (bytes > MAX_DOCUMENT_BYTES) break;
    kept.push(word);
  }
  return kept.join(' ');
}

/** How many characters of each word the GIN index holds (migration 031). */
export const INDEXED_CHARACTERS = 16;

/** What a search asks of a row of messages_fts: see textQuery. */
export interface TextQuery {
  /** The text form of a tsquery on mailroom_search_prefixes(words), which its GIN index answers. */
  prefixes: string;
  /**
   * For each word the index holds cut: what ' ' || words || ' ' must contain, the word between
   * spaces (the last one, a prefix, only after one).
   */
  whole: string[];
}

/**
 * What a search for the words a user typed asks on PostgreSQL: every word in the document, the
 * last one as a prefix, each made what FTS5 makes of it. The index holds each word's first
 * INDEXED_CHARACTERS only: a shorter search word is matched there exactly (a word the index holds
 * whole, or as a prefix of one), a longer one by its first characters there and then whole in
 * the row's words. Undefined when no word is left (nothing can match).
 */
export function textQuery(words: string[]): TextQuery | undefined {
  const lexemes = words.flatMap((word) => searchWordsInOrder(word));
  if (lexemes.length === 0) return undefined;
  const whole: string[] = [];
  const prefixes = lexemes.map((lexeme, i) => {
    const last = i === lexemes.length - 1;
    const characters = Array.from(lexeme);
    if (characters.length < INDEXED_CHARACTERS) return last ? `${quoted(lexeme)}:*` : quoted(lexeme);
    whole.push(last ? ` ${lexeme}` : ` ${lexeme} `);
    return quoted(characters.slice(0, INDEXED_CHARACTERS).join(''));
  });
  return { prefixes: prefixes.join(' & '), whole };
}
