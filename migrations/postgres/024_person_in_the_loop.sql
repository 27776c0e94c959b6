-- A person in the loop: the same shape as migrations/024_person_in_the_loop.sql, which says
-- what each table holds.
CREATE TABLE correspondents (
  inbox_id  bigint NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  address   text COLLATE "C" NOT NULL,
  PRIMARY KEY (inbox_id, address)
);
INSERT INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(m.from_address) FROM messages m JOIN folders f ON f.id = m.folder_id
   WHERE m.from_address <> '' AND coalesce(f.special_use, '') NOT IN ('\Junk', '\Sent', '\Drafts')
  ON CONFLICT DO NOTHING;
INSERT INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(j.value) FROM messages m JOIN folders f ON f.id = m.folder_id,
         jsonb_array_elements_text(m.to_addrs::jsonb || m.cc_addrs::jsonb || m.bcc_addrs::jsonb) AS j(value)
   WHERE f.special_use = '\Sent' AND j.value <> ''
  ON CONFLICT DO NOTHING;

UPDATE folders SET name = name || ' (before Outbox)' WHERE lower(name) = 'outbox';
INSERT INTO folders (inbox_id, name, special_use, created_at)
  SELECT id, 'Outbox', '\Outbox', created_at FROM inboxes;

CREATE TABLE held_sends (
  id            text COLLATE "C" PRIMARY KEY,
  inbox_id      bigint NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  message_id    bigint REFERENCES messages(id) ON DELETE SET NULL,
  uid           bigint NOT NULL,
  state         text COLLATE "C" NOT NULL,
  requested_by  text COLLATE "C",
  approval      smallint NOT NULL DEFAULT 0,
  send_at       text COLLATE "C",
  expires_at    text COLLATE "C",
  due_at        text COLLATE "C",
  claim_id      text COLLATE "C",
  reason        text COLLATE "C",
  decided_by    text COLLATE "C",
  extra         text COLLATE "C" NOT NULL DEFAULT '{}',
  created_at    text COLLATE "C" NOT NULL,
  updated_at    text COLLATE "C" NOT NULL
);
CREATE INDEX held_sends_due ON held_sends(due_at) WHERE state IN ('pending', 'scheduled');
CREATE INDEX held_sends_inbox ON held_sends(inbox_id, state, created_at);
CREATE INDEX held_sends_message ON held_sends(message_id);

ALTER TABLE messages ADD COLUMN rejected_reason text COLLATE "C";
