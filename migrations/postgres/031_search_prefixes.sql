-- The GIN index holds each word cut to its first 16 characters (issue 31). Most of its entries are
-- words found in one message only, the random runs of tracking links and message ids, about 26
-- characters each: cut, the index kept 0.038 bytes per byte of mail on the storage bench instead
-- of 0.049. A search word of 16 characters or more is looked up by its first 16 in the index and
-- then checked whole against the row's words (src/db/postgres/text-search.ts), so every search
-- finds what it found before. Built here in one go over the rows already there.
CREATE FUNCTION mailroom_search_prefixes(words text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 SET search_path = pg_catalog
  AS $$ SELECT array_to_tsvector(ARRAY(SELECT left(w, 16) FROM unnest(string_to_array(words, ' ')) AS w)) $$;
CREATE INDEX messages_fts_prefixes ON messages_fts USING gin (mailroom_search_prefixes(words)) WITH (fastupdate = off);
DROP INDEX messages_fts_words;
DROP FUNCTION mailroom_search_document(text);
