-- Inbox settings (contract 14): how the inbox may send (mode), whether sending is paused, and its
-- send limits per hour and per day in recipients (NULL: the server's MAILROOM_SEND_LIMIT_PER_*;
-- 0: none).
ALTER TABLE inboxes ADD COLUMN send_mode TEXT NOT NULL DEFAULT 'autonomous';
ALTER TABLE inboxes ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inboxes ADD COLUMN send_limit_per_hour INTEGER;
ALTER TABLE inboxes ADD COLUMN send_limit_per_day INTEGER;

-- One row per recipient of each message an inbox sent, kept a day: what the send limits, the
-- loop guard and the settings' `sent` counts count. Written in the send's own transaction.
CREATE TABLE send_log (
  id        INTEGER PRIMARY KEY,
  inbox_id  INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  address   TEXT NOT NULL,
  sent_at   TEXT NOT NULL
);
CREATE INDEX send_log_inbox_time ON send_log(inbox_id, sent_at);
CREATE INDEX send_log_inbox_address ON send_log(inbox_id, address, sent_at);

-- When the loop guard last raised inbox.loop_detected for an address: one event per refusal
-- streak, not one per refused send.
CREATE TABLE loop_alerts (
  inbox_id   INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  address    TEXT NOT NULL,
  raised_at  TEXT NOT NULL,
  PRIMARY KEY (inbox_id, address)
);

-- Whether received mail was sent by a machine (Auto-Submitted, Precedence, X-Autoreply, a null
-- envelope sender): the Email's autoReply. Mail stored before this migration reads false.
ALTER TABLE messages ADD COLUMN auto_reply INTEGER NOT NULL DEFAULT 0;
