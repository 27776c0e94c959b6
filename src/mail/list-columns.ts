import { extractReplyText } from './extract-reply.js';

/** A list shows this many characters of a text, and says `truncated` past it. */
export const LIST_TEXT_LIMIT = 500;
const PREVIEW_LENGTH = 200;

/** Stored with each message when it is filed (listColumnsOf): a change here needs the refill extractReplyText's note describes. */
export function previewOf(text: string): string {
  return text
    .slice(0, PREVIEW_LENGTH * 4)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, PREVIEW_LENGTH);
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
