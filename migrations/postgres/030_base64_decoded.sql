-- As migrations/030_base64_decoded.sql: sources stored from now on keep their base64 decoded.
-- A constant default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE message_sources ADD COLUMN base64_decoded smallint NOT NULL DEFAULT 0;
