-- A message's full-text row keeps its words as text, one space between them (the distinct words
-- FTS5's tokenizer makes of it, src/db/postgres/text-search.ts), and the GIN index is on the
-- tsvector made of that text: a stored tsvector cost 4 bytes more a word, and TOAST compressed
-- neither (docs/decisions/search.md). Search matches mailroom_search_document(words), the
-- index's own expression.
-- Kept a function call (SET makes PostgreSQL not inline it) with its true cost: inlined, the
-- planner took it for two cheap calls and scanned the table for a common word, making every
-- row's tsvector again (100 ms for 1,800 messages where the index answers in 1 ms).
CREATE FUNCTION mailroom_search_document(words text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 SET search_path = pg_catalog
  AS $$ SELECT array_to_tsvector(string_to_array(words, ' ')) $$;
ALTER TABLE messages_fts ADD COLUMN words text COLLATE "C";
-- In the row up to a page (MAIN): past 2 KB, EXTENDED moved the words of one message in five out
-- to TOAST's chunks and their index (0.003 bytes per byte of mail more), and compressing them
-- gains nothing (distinct words repeat nothing).
ALTER TABLE messages_fts ALTER COLUMN words SET STORAGE MAIN;
ALTER TABLE messages_fts ALTER COLUMN document DROP NOT NULL;
-- Made now and filled as rows are converted: built in one go (REINDEX on the storage bench's
-- corpus), the index came out 27% larger than filled a row at a time. No pending list:
-- its pages held entries the index never gave back (migration 017).
CREATE INDEX messages_fts_words ON messages_fts USING gin (mailroom_search_document(words)) WITH (fastupdate = off);
-- The start converts the rows written before, in batches, then drops `document` with its index
-- (src/db/postgres/search-words-upgrade.ts); an empty table takes that step at once.
INSERT INTO settings (key, value) VALUES ('search_words', 'converting');
