-- A remote message is stored once in its folder (contract 11, docs/decisions/several-nodes.md):
-- (folder_id, remote_uid) becomes unique, the backstop behind the sync's lease and the mailbox
-- lock. Copies stored twice before (two nodes syncing one mailbox) are folded into the oldest
-- row: it takes the union of their flags and the events that read their body, and they go.

CREATE TEMP TABLE remote_twins AS
  SELECT m.id, m.source_id,
         (SELECT min(o.id) FROM messages o
           WHERE o.folder_id = m.folder_id AND o.remote_uid = m.remote_uid) AS kept
    FROM messages m
   WHERE m.remote_uid IS NOT NULL;
DELETE FROM remote_twins WHERE id = kept;

UPDATE messages
   SET flags = (SELECT json_group_array(DISTINCT f.value)
                  FROM messages d, json_each(d.flags) f
                 WHERE d.id = messages.id OR d.id IN (SELECT id FROM remote_twins WHERE kept = messages.id))
 WHERE id IN (SELECT kept FROM remote_twins);
UPDATE messages
   SET seen = EXISTS (SELECT 1 FROM json_each(messages.flags) WHERE value = '\Seen')
 WHERE id IN (SELECT kept FROM remote_twins);

UPDATE events
   SET body_of = (SELECT kept FROM remote_twins t WHERE t.id = events.body_of)
 WHERE body_of IN (SELECT id FROM remote_twins);
DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM remote_twins);
DELETE FROM messages WHERE id IN (SELECT id FROM remote_twins);
DELETE FROM message_sources
 WHERE id IN (SELECT source_id FROM remote_twins)
   AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = message_sources.id);
DROP TABLE remote_twins;

DROP INDEX messages_folder_remote_uid;
CREATE UNIQUE INDEX messages_folder_remote_uid ON messages(folder_id, remote_uid) WHERE remote_uid IS NOT NULL;
