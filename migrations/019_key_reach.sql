-- A key's reach (contract 14): `inboxes`, a JSON array of lower-case addresses (NULL: every inbox
-- of its user), and `permissions`, a JSON array of read, organise, send, manage, approve. Keys
-- made before this migration keep what they could do: every inbox, all but approve.
ALTER TABLE api_keys ADD COLUMN inboxes TEXT;
ALTER TABLE api_keys ADD COLUMN permissions TEXT NOT NULL DEFAULT '["read","organise","send","manage"]';
