import { extractReplyText } from './extract-reply.js';

/** A list shows this many characters of a text, and says `truncated` past it. */
export const LIST_TEXT_LIMIT = 500;
const PREVIEW_LENGTH = 200;

/**
 * The first 200 characters of the text's first 800, each run of white space one space, none at
 * either end. Stored with each message when it is filed (listColumnsOf): a change here needs the
 * refill extractReplyText's note describes. A list works it out again for most rows (where it is
 * the list text's own, it is not stored): one pass that stops at 200 characters, not a regular
 * expression over all 800 (test/mail/list-columns.test.ts holds it to that form's answers).
 */
export function previewOf(text: string): string {
  const end = Math.min(text.length, PREVIEW_LENGTH * 4);
  let preview = '';
  let i = 0;
  while (i < end && preview.length < PREVIEW_LENGTH) {
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    let j = i;
    while (j < end && !isSpace(text.charCodeAt(j))) j++;
    if (j > i) preview += preview === '' ? text.slice(i, j) : ` ${text.slice(i, j)}`;
    i = j;
  }
  return preview.length > PREVIEW_LENGTH ? preview.slice(0, PREVIEW_LENGTH) : preview;
}

/** Whether a UTF-16 unit is white space as a regular expression's `\s` (and `trim`) take it. */
function isSpace(unit: number): boolean {
  if (unit < 128) return unit === 32 || (unit >= 9 && unit <= 13);
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/** The list_text of a text: its first 501 characters, enough for a list's 500 and to tell whether it was cut. */
export const listTextOf = (text: string): string => text.slice(0, LIST_TEXT_LIMIT + 1);

/**
 * What a list shows of a text beyond its first 501 characters' worth, worked out once when the
 * message is filed and stored with it (migrations 013 and 017), so a page reads neither the whole
 * text nor works on it: its first 501 characters, the preview and extractedText as a list cuts it. toEmailView gives the same answer
 * from these as from the whole text. An extracted text that is the text's own start (mail that
 * quotes nothing: most of it) is stored as NULL, and a preview the list text gives as well: a row
 * does not carry the same characters twice. Migration 017 filled them in on rows filed before 013.
 */
export function listColumnsOf(text: string): {
  preview: string | null;
  list_extracted_text: string | null;
  list_text: string;
} {
  const extracted = extractReplyText(text).slice(0, LIST_TEXT_LIMIT);
  const listText = listTextOf(text);
  return {
    list_text: listText,
    preview: storedPreview(previewOf(text), listText),
    list_extracted_text: extracted === text.slice(0, LIST_TEXT_LIMIT) ? null : extracted,
  };
}

/** A preview as stored beside `listText`: NULL where the list text gives it (most text: 200 characters before 501 are whitespace). */
export const storedPreview = (preview: string, listText: string): string | null =>
  preview === previewOf(listText) ? null : preview;
