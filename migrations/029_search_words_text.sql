-- PostgreSQL only (migrations/postgres/029_search_words_text.sql): its full-text rows keep their
-- words as text under a GIN index on the tsvector made of them. SQLite's FTS5 index is unchanged;
-- this file keeps both engines' migration lists the same.
SELECT 1;
