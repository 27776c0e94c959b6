-- A key's reach: the same shape as migrations/019_key_reach.sql (inboxes: JSON addresses or NULL
-- for all; permissions: JSON names, all but approve for keys made before it).
ALTER TABLE api_keys ADD COLUMN inboxes text COLLATE "C";
ALTER TABLE api_keys ADD COLUMN permissions text COLLATE "C" NOT NULL DEFAULT '["read","organise","send","manage"]';
