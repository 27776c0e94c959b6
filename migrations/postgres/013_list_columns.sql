-- What a list page shows of a message's text, worked out once when the message is filed: the
-- same columns as migrations/013_list_columns.sql. NULL on rows filed before it; a page reads
-- those rows' whole text and works both out as before.
ALTER TABLE messages ADD COLUMN preview text COLLATE "C";
ALTER TABLE messages ADD COLUMN list_extracted_text text COLLATE "C";
