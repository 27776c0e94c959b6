-- A person in the loop (contract 15).
--
-- correspondents: every address an inbox has received mail from (header From, filed outside
-- Spam) or sent mail to, kept on filing and sending; mode approve_new asks it whether a
-- recipient is new with one primary-key look-up each. Filled here from the mail already stored.
CREATE TABLE correspondents (
  inbox_id  INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  address   TEXT NOT NULL,
  PRIMARY KEY (inbox_id, address)
);
INSERT OR IGNORE INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(m.from_address) FROM messages m JOIN folders f ON f.id = m.folder_id
   WHERE m.from_address <> '' AND coalesce(f.special_use, '') NOT IN ('\Junk', '\Sent', '\Drafts');
INSERT OR IGNORE INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(j.value) FROM messages m JOIN folders f ON f.id = m.folder_id,
         json_each(m.to_addrs) j
   WHERE f.special_use = '\Sent' AND j.value <> '';
INSERT OR IGNORE INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(j.value) FROM messages m JOIN folders f ON f.id = m.folder_id,
         json_each(m.cc_addrs) j
   WHERE f.special_use = '\Sent' AND j.value <> '';
INSERT OR IGNORE INTO correspondents (inbox_id, address)
  SELECT m.inbox_id, lower(j.value) FROM messages m JOIN folders f ON f.id = m.folder_id,
         json_each(m.bcc_addrs) j
   WHERE f.special_use = '\Sent' AND j.value <> '';

-- The special folder Outbox (special use \Outbox, this server's own) where a send waiting for
-- approval or for its time is kept. A folder someone named Outbox before is renamed out of the way.
UPDATE folders SET name = name || ' (before Outbox)' WHERE lower(name) = 'outbox';
INSERT INTO folders (inbox_id, name, special_use, created_at)
  SELECT id, 'Outbox', '\Outbox', created_at FROM inboxes;

-- A send kept in Outbox. state: pending (waits for a decision until expires_at), scheduled
-- (goes at send_at), sent, rejected (reason: the reason given, cancelled, expired, or the rule
-- that refused it when it went). due_at: when the worker looks at it next (expires_at or
-- send_at; a claimed row's is its lease's end). message_id: its message in Outbox (NULL once it
-- left). extra: JSON of what the stored MIME does not carry (replyTo, headers, the uid answered).
CREATE TABLE held_sends (
  id            TEXT PRIMARY KEY,
  inbox_id      INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  message_id    INTEGER REFERENCES messages(id) ON DELETE SET NULL,
  uid           INTEGER NOT NULL,
  state         TEXT NOT NULL,
  requested_by  TEXT,
  approval      INTEGER NOT NULL DEFAULT 0,
  send_at       TEXT,
  expires_at    TEXT,
  due_at        TEXT,
  claim_id      TEXT,
  reason        TEXT,
  decided_by    TEXT,
  extra         TEXT NOT NULL DEFAULT '{}',
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX held_sends_due ON held_sends(due_at) WHERE state IN ('pending', 'scheduled');
CREATE INDEX held_sends_inbox ON held_sends(inbox_id, state, created_at);
CREATE INDEX held_sends_message ON held_sends(message_id);

-- Why a send that did not go was moved back to Drafts: the Email's rejectedReason.
ALTER TABLE messages ADD COLUMN rejected_reason TEXT;
