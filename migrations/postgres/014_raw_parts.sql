-- A message's source in pieces of 1 MB: the same shape as migrations/014_raw_parts.sql.
-- message_raw.raw holds the first piece, `parts` how many follow in message_raw_parts (0 for
-- every source of up to 1 MB and every row written before); a bind then carries a few MB at most
-- instead of the whole source in pg's write buffer.
ALTER TABLE message_raw ADD COLUMN parts bigint NOT NULL DEFAULT 0;
CREATE TABLE message_raw_parts (
  message_id  bigint NOT NULL REFERENCES message_raw(message_id) ON DELETE CASCADE,
  part        bigint NOT NULL,
  bytes       bytea NOT NULL,
  PRIMARY KEY (message_id, part)
);
