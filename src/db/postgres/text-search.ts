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
 * mailroom_search_document gets them back by splitting on spaces. Words PostgreSQL cannot hold
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

/**
 * The text form of the tsquery for what a user typed, split into words by the API: every word
 * must be in the document, the last one as a prefix; each word is made what FTS5 makes of it.
 * Undefined when no word is left (nothing can match).
 */
export function tsqueryText(words: string[]): string | undefined {
  const lexemes = words.flatMap((word) => searchWordsInOrder(word).map(quoted));
  if (lexemes.length === 0) return undefined;
  return lexemes.map((lexeme, i) => (i === lexemes.length - 1 ? `${lexeme}:*` : lexeme)).join(' & ');
}
