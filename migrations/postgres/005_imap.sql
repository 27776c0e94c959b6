-- External mailboxes (issue 6): what the IMAP sync remembers per folder, and a lookup of the
-- local copy of a remote message by its remote UID.

-- The remote HIGHESTMODSEQ seen at the last sync (CONDSTORE), and the remote UIDNEXT: mail
-- with a UID at or above it is new.
ALTER TABLE folders ADD COLUMN highest_modseq bigint;
ALTER TABLE folders ADD COLUMN uid_next_seen bigint;

CREATE INDEX messages_folder_remote_uid ON messages(folder_id, remote_uid) WHERE remote_uid IS NOT NULL;
