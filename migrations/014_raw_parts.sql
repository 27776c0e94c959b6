-- A message's source in pieces of 1 MB (issue 17): one 25 MB row cost two transient copies of it
-- while it was stored (better-sqlite3's copy of the bound blob, SQLite's record), on PostgreSQL
-- the whole parameter in pg's write buffer. message_raw.raw now holds the first piece and `parts`
-- says how many follow in message_raw_parts, numbered from 1; 0 for every source of up to 1 MB
-- and for every row written before this migration (docs/decisions/compact-storage.md, "A big source in pieces").
ALTER TABLE message_raw ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;
CREATE TABLE message_raw_parts (
  message_id  INTEGER NOT NULL REFERENCES message_raw(message_id) ON DELETE CASCADE,
  part        INTEGER NOT NULL,
  bytes       BLOB NOT NULL,
  PRIMARY KEY (message_id, part)
);
