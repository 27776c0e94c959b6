-- Nothing changes on SQLite: FTS5's unicode61 tokenizer keeps making messages_fts. PostgreSQL's
-- full-text documents are now made of the words that same tokenizer gives (migrations/postgres/
-- 010_search_words.sql); this file keeps the two engines' migration lists the same.
SELECT 1;
