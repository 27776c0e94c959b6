-- The GIN index holds each word cut to its first 16 characters (issue 31). Most of its entries are
-- words found in one message only, the random runs of tracking links and message ids, about 26
-- characters each, and an entry's size is mostly its word: cut, the index keeps 0.040 bytes per
-- byte of mail on the storage bench instead of 0.049 (docs/decisions/search.md).
--
-- messages_fts.words is now: the words of up to 16 characters and the first 16 of each longer
-- one, one space between them; then, where there are longer words, U+0001 and the rest of each
-- (what follows its first 16), in the same order. FTS5 never makes a word holding a space or a
-- control character. The index is on the part before U+0001, read as cheaply as the whole words
-- were (a search reads that expression row by row when a word is in most mail). A search word of
-- 16 characters or more is found by its first 16 in the index, then whole among the row's words
-- as mailroom_search_whole puts them back together (src/db/postgres/text-search.ts).
CREATE FUNCTION mailroom_search_tokens(words text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 SET search_path = pg_catalog
  AS $$ SELECT array_to_tsvector(string_to_array(split_part(words, E'\x01', 1), ' ')) $$;

CREATE FUNCTION mailroom_search_whole(words text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE COST 1000 SET search_path = pg_catalog
  AS $$
    SELECT a[1:cardinality(a) - cardinality(t)]
           || ARRAY(SELECT h || rest FROM unnest(a[cardinality(a) - cardinality(t) + 1:cardinality(a)], t) AS x(h, rest))
      FROM (SELECT string_to_array(split_part(words, E'\x01', 1), ' ') AS a,
                   string_to_array(split_part(words, E'\x01', 2), ' ') AS t) AS parts
  $$;

-- Words as migration 029 wrote them (each whole) in this layout: for the rows already written,
-- and for the rows src/db/postgres/search-words-upgrade.ts converts from stored tsvectors.
CREATE FUNCTION mailroom_search_layout(words text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$
    SELECT CASE WHEN cardinality(long) = 0 THEN words
      ELSE array_to_string(short || ARRAY(SELECT left(w, 16) FROM unnest(long) WITH ORDINALITY AS x(w, n) ORDER BY n), ' ')
           || E'\x01' || array_to_string(ARRAY(SELECT substr(w, 17) FROM unnest(long) WITH ORDINALITY AS x(w, n) ORDER BY n), ' ')
      END
      FROM (SELECT ARRAY(SELECT w FROM unnest(string_to_array(words, ' ')) WITH ORDINALITY AS x(w, n) WHERE char_length(w) <= 16 ORDER BY n) AS short,
                   ARRAY(SELECT w FROM unnest(string_to_array(words, ' ')) WITH ORDINALITY AS x(w, n) WHERE char_length(w) > 16 ORDER BY n) AS long) AS parts
  $$;

UPDATE messages_fts SET words = mailroom_search_layout(words) WHERE words ~ '[^ ]{17}';
-- Built here in one go over the rows already there (about 4 s for 100,000 of the list bench's).
CREATE INDEX messages_fts_tokens ON messages_fts USING gin (mailroom_search_tokens(words)) WITH (fastupdate = off);
DROP INDEX messages_fts_words;
DROP FUNCTION mailroom_search_document(text);
