-- Mail on disk below its own size (issue 31). A message's source and its text and html are kept
-- compressed (brotli) in message_sources, once for every local inbox one delivery reached: a
-- message to three inboxes is three rows of `messages` pointing at one source. A list reads
-- `list_text` (the text's first 501 characters) and never the source. `messages.text`, `html` and
-- the old `message_raw` tables stay until every message is converted: the start after this
-- migration converts them in batches, with its progress in the log, and a start that stops half
-- way goes on where it stopped (src/store/compact-conversion.ts, which then drops them and, on
-- SQLite, rebuilds messages_fts without the positions no query reads).
CREATE TABLE message_sources (
  id     INTEGER PRIMARY KEY,
  -- Read by every full read of a message: before `raw`, so reading it never walks the source's pages.
  body   BLOB NOT NULL,
  raw    BLOB NOT NULL,
  parts  INTEGER NOT NULL DEFAULT 0
);
-- The source's further pieces, each 1 MB of the source compressed on its own, numbered from 1.
CREATE TABLE message_source_parts (
  source_id  INTEGER NOT NULL REFERENCES message_sources(id) ON DELETE CASCADE,
  part       INTEGER NOT NULL,
  bytes      BLOB NOT NULL,
  PRIMARY KEY (source_id, part)
);
ALTER TABLE messages ADD COLUMN source_id INTEGER REFERENCES message_sources(id);
ALTER TABLE messages ADD COLUMN list_text TEXT;
CREATE INDEX messages_source ON messages(source_id);
INSERT INTO settings (key, value) VALUES ('compact_storage', 'converting');
