-- Full-text documents are made in Node, not by a trigger: the words SQLite's FTS5 tokenizer
-- (unicode61 remove_diacritics 2) makes of a message, written as a ready tsvector
-- (src/db/postgres/text-search.ts). Both engines now find the same mail by construction, and
-- ingest no longer pays ~4 ms a message for translate() and to_tsvector() (docs/decisions/search.md).
-- The subject, addresses and body columns stay, always NULL, so the columns match SQLite's.
DROP TRIGGER messages_fts_contentless ON messages_fts;
DROP FUNCTION messages_fts_contentless();
DROP FUNCTION mailroom_search_document(text, text, text);
DROP TEXT SEARCH CONFIGURATION mailroom_search;

-- Documents written before this migration hold PostgreSQL's own words (unaccent, its parser),
-- which differ from FTS5's for some letters (ø, æ, ß, й...). The next start rebuilds them, in
-- batches, up to this message id (src/store/search-rebuild.ts); ASCII words match meanwhile.
INSERT INTO settings (key, value)
  SELECT 'search_rebuild_through', max(rowid)::text FROM messages_fts HAVING count(*) > 0;
