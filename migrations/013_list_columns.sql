-- What a list page shows of a message's text, worked out once when the message is filed instead
-- of on every page (issue 13): `preview` (the Email's ~200-character preview) and
-- `list_extracted_text` (extractedText as a list shows it: cut to 500 characters). A page then
-- reads only the first 501 characters of `text`. NULL on rows filed before this migration (and
-- after any later migration that sets them back to NULL because the extraction changed): a page
-- reads those rows' whole text and works both out as before (docs/decisions/list-performance.md).
-- Migration 017 later replaced that rule: every row is converted, and `preview` stays NULL only
-- where `list_text` gives it (storedPreview in src/mail/list-columns.ts).
ALTER TABLE messages ADD COLUMN preview TEXT;
ALTER TABLE messages ADD COLUMN list_extracted_text TEXT;
