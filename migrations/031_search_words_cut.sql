-- PostgreSQL only (migrations/postgres/031_search_words_cut.sql): its GIN index holds each word cut
-- to 16 characters. SQLite's FTS5 index is unchanged; this file keeps both engines' lists the same.
SELECT 1;
