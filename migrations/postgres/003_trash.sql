-- When a message was moved to Trash; the trash sweep deletes it for good MAILROOM_TRASH_DAYS later.
-- NULL outside Trash. Mail that reached Trash without a move (an IMAP sync) falls back to received_at.
-- The sweep reaches Trash rows through messages_folder_uid, so no index of its own.
ALTER TABLE messages ADD COLUMN trashed_at text COLLATE "C";

-- Mail already in Trash gets the full retention period from now (the ISO form SQLite writes).
UPDATE messages SET trashed_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
WHERE folder_id IN (SELECT id FROM folders WHERE special_use = '\Trash');
