-- A remote message is stored once in its folder: the same as migrations/027_unique_remote_uid.sql,
-- which says what it does (messages_fts rows go by their cascade here).

CREATE TEMP TABLE remote_twins AS
  SELECT m.id, m.source_id,
         (SELECT min(o.id) FROM messages o
           WHERE o.folder_id = m.folder_id AND o.remote_uid = m.remote_uid) AS kept
    FROM messages m
   WHERE m.remote_uid IS NOT NULL;
DELETE FROM remote_twins WHERE id = kept;

UPDATE messages
   SET flags = COALESCE((SELECT jsonb_agg(DISTINCT f)::text
                           FROM messages d, jsonb_array_elements_text(d.flags::jsonb) f
                          WHERE d.id = messages.id
                             OR d.id IN (SELECT id FROM remote_twins WHERE kept = messages.id)), '[]')
 WHERE id IN (SELECT kept FROM remote_twins);
UPDATE messages
   SET seen = CASE WHEN flags::jsonb @> '["\\Seen"]'::jsonb THEN 1 ELSE 0 END
 WHERE id IN (SELECT kept FROM remote_twins);

UPDATE events
   SET body_of = (SELECT kept FROM remote_twins t WHERE t.id = events.body_of)
 WHERE body_of IN (SELECT id FROM remote_twins);
DELETE FROM messages WHERE id IN (SELECT id FROM remote_twins);
DELETE FROM message_sources
 WHERE id IN (SELECT source_id FROM remote_twins)
   AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = message_sources.id);
DROP TABLE remote_twins;
-- The deferred foreign keys' checks of those deletes, run now: an index is not built over pending ones.
SET CONSTRAINTS ALL IMMEDIATE;

DROP INDEX messages_folder_remote_uid;
CREATE UNIQUE INDEX messages_folder_remote_uid ON messages(folder_id, remote_uid) WHERE remote_uid IS NOT NULL;
