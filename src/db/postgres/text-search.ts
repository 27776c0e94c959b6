import { searchWordsInOrder, searchWordsOf } from '../search-words.js';

/** A tsvector holds at most 1 MB; stop short of it (only a pathological text comes near). */
const MAX_DOCUMENT_BYTES = 1_000_000;

/** A word in the text form of a tsquery: quoted, quote and backslash doubled. */
const quoted = (word: string) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** How many characters of each word the GIN index holds (migration 031). */
export const INDEXED_CHARACTERS = 16;
/** Between the words the index reads and the rest of the longer ones (migration 031). */
const REST = '\x01';

/**
 * The words that index `text` on PostgreSQL (messages_fts.words, migrations 029 and 031): the
 * distinct words FTS5 makes of it, as they are (no positions, no normalising by PostgreSQL: the
 * words already are), one space between them, each longer than INDEXED_CHARACTERS cut there; then,
 * where there are such, U+0001 and what was cut off each, in the same order. FTS5 never makes a
 * word with a space or a control character in it, so the index's mailroom_search_tokens and
 * mailroom_search_whole get them back by splitting. A word of more than the 2,046 bytes a tsvector
 * takes is kept too (left out before migration 031): the index holds its first characters only.
 */
export function searchWordsText(text: string): string {
  const kept: string[] = [];
  const cut: string[] = [];
  const rest: string[] = [];
  let bytes = 0;
  for (const word of searchWordsOf(text)) {
    bytes += Buffer.byteLength(word) + 8;
    if (bytes > MAX_DOCUMENT_BYTES) break;
    const characters = word.length > INDEXED_CHARACTERS ? Array.from(word) : undefined;
    if (characters === undefined || characters.length <= INDEXED_CHARACTERS) kept.push(word);
    else {
      cut.push(characters.slice(0, INDEXED_CHARACTERS).join(''));
      rest.push(characters.slice(INDEXED_CHARACTERS).join(''));
    }
  }
  const indexed = [...kept, ...cut].join(' ');
  return rest.length === 0 ? indexed : `${indexed}${REST}${rest.join(' ')}`;
}

/** A search word the index holds only the first INDEXED_CHARACTERS of: looked for whole in the row. */
export interface WholeWord {
  word: string;
  /** The search's last word, which a row's word need only start with. */
  prefix: boolean;
}

/** What a search asks of a row of messages_fts: see textQuery. */
export interface TextQuery {
  /** The text form of a tsquery on mailroom_search_tokens(words), which its GIN index answers. */
  tokens: string;
  whole: WholeWord[];
}

/**
 * What a search for the words a user typed asks on PostgreSQL: every word in the document, the
 * last one as a prefix, each made what FTS5 makes of it. A word under INDEXED_CHARACTERS is
 * matched in the index exactly as it is (a word the index holds whole, or, the last one, the
 * start of one). A longer one is matched there by its first INDEXED_CHARACTERS, which a longer
 * word of the row may share, and then whole among the row's words. Undefined when no word is
 * left (nothing can match).
 */
export function textQuery(words: string[]): TextQuery | undefined {
  const lexemes = words.flatMap((word) => searchWordsInOrder(word));
  if (lexemes.length === 0) return undefined;
  const whole: WholeWord[] = [];
  const tokens = lexemes.map((lexeme, i) => {
    const prefix = i === lexemes.length - 1;
    const characters = Array.from(lexeme);
    if (characters.length < INDEXED_CHARACTERS) return prefix ? `${quoted(lexeme)}:*` : quoted(lexeme);
    whole.push({ word: lexeme, prefix });
    return quoted(characters.slice(0, INDEXED_CHARACTERS).join(''));
  });
  return { tokens: tokens.join(' & '), whole };
}
