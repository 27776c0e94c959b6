-- Mailroom schema, version 1. Timestamps are UTC ISO 8601 strings with milliseconds
-- ('2026-11-21T05:40:00.000Z'), so they sort as text.

CREATE TABLE users (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
  created_at  TEXT NOT NULL
);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name          TEXT NOT NULL DEFAULT '',
  prefix        TEXT NOT NULL,
  hash          TEXT NOT NULL UNIQUE,
  created_at    TEXT NOT NULL,
  last_used_at  TEXT,
  revoked_at    TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE domains (
  name              TEXT PRIMARY KEY COLLATE NOCASE,
  dkim_selector     TEXT NOT NULL,
  dkim_private_key  TEXT NOT NULL,
  dkim_public_key   TEXT NOT NULL,
  created_at        TEXT NOT NULL
);

CREATE TABLE inboxes (
  id            INTEGER PRIMARY KEY,
  address       TEXT NOT NULL UNIQUE COLLATE NOCASE,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN ('local', 'imap')),
  display_name  TEXT NOT NULL DEFAULT '',
  uid_next      INTEGER NOT NULL DEFAULT 1,
  -- IMAP-connected inboxes: encrypted connection settings and sync state.
  remote_config TEXT,
  sync_state    TEXT,
  sync_error    TEXT,
  last_sync_at  TEXT,
  created_at    TEXT NOT NULL
);
CREATE INDEX inboxes_user ON inboxes(user_id);

CREATE TABLE folders (
  id           INTEGER PRIMARY KEY,
  inbox_id     INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  special_use  TEXT,
  remote_path  TEXT,
  uid_validity INTEGER,
  created_at   TEXT NOT NULL,
  UNIQUE (inbox_id, name COLLATE NOCASE)
);

CREATE TABLE threads (
  id            TEXT PRIMARY KEY,
  inbox_id      INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  subject       TEXT NOT NULL,
  subject_key   TEXT NOT NULL,
  last_uid      INTEGER NOT NULL,
  last_date     TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX threads_inbox_last ON threads(inbox_id, last_uid DESC);
CREATE INDEX threads_subject ON threads(inbox_id, subject_key, last_date);

CREATE TABLE messages (
  id               INTEGER PRIMARY KEY,
  inbox_id         INTEGER NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
  uid              INTEGER NOT NULL,
  folder_id        INTEGER NOT NULL REFERENCES folders(id),
  thread_id        TEXT NOT NULL,
  message_id       TEXT NOT NULL,
  in_reply_to      TEXT,
  refs             TEXT NOT NULL DEFAULT '[]',
  from_address     TEXT NOT NULL DEFAULT '',
  from_name        TEXT NOT NULL DEFAULT '',
  to_addrs         TEXT NOT NULL DEFAULT '[]',
  cc_addrs         TEXT NOT NULL DEFAULT '[]',
  bcc_addrs        TEXT NOT NULL DEFAULT '[]',
  reply_to         TEXT NOT NULL DEFAULT '[]',
  subject          TEXT NOT NULL DEFAULT '',
  date             TEXT NOT NULL,
  received_at      TEXT NOT NULL,
  text             TEXT NOT NULL DEFAULT '',
  html             TEXT NOT NULL DEFAULT '',
  size             INTEGER NOT NULL,
  has_attachments  INTEGER NOT NULL DEFAULT 0,
  flags            TEXT NOT NULL DEFAULT '[]',
  seen             INTEGER NOT NULL DEFAULT 0,
  auth_results     TEXT,
  delivery         TEXT,
  remote_uid       INTEGER,
  UNIQUE (inbox_id, uid)
);
CREATE INDEX messages_folder_uid ON messages(folder_id, uid DESC);
CREATE INDEX messages_folder_unseen ON messages(folder_id, seen);
CREATE INDEX messages_thread ON messages(thread_id, uid);
CREATE INDEX messages_msgid ON messages(inbox_id, message_id);

-- The raw message as received or sent, kept apart so listing never reads it.
CREATE TABLE message_raw (
  message_id  INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  raw         BLOB NOT NULL
);

CREATE TABLE attachments (
  message_id    INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  attachment_id TEXT NOT NULL,
  filename      TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  size          INTEGER NOT NULL,
  content_id    TEXT,
  inline        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (message_id, attachment_id)
) WITHOUT ROWID;

-- Full-text index: rowid = messages.id. Contentless: the text lives in messages.
CREATE VIRTUAL TABLE messages_fts USING fts5(
  subject, addresses, body,
  content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE labels (
  id           TEXT PRIMARY KEY,
  user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  color        TEXT NOT NULL,
  description  TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX labels_user_name ON labels(user_id, lower(name));

CREATE TABLE message_labels (
  message_id  INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  label_id    TEXT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  PRIMARY KEY (message_id, label_id)
) WITHOUT ROWID;
CREATE INDEX message_labels_label ON message_labels(label_id, message_id);

-- Outbound delivery, one row per recipient of a sent message.
CREATE TABLE deliveries (
  id               INTEGER PRIMARY KEY,
  message_id       INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  recipient        TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('queued', 'deferred', 'delivered', 'failed', 'captured')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  last_error       TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);
CREATE INDEX deliveries_message ON deliveries(message_id);

-- The event log: one row per thing that happened. seq orders the SSE stream.
CREATE TABLE events (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL UNIQUE,
  type        TEXT NOT NULL,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inbox_id    INTEGER REFERENCES inboxes(id) ON DELETE CASCADE,
  payload     TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX events_inbox_seq ON events(inbox_id, seq);

CREATE TABLE webhooks (
  id            TEXT PRIMARY KEY,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url           TEXT NOT NULL,
  events        TEXT NOT NULL,
  accounts      TEXT,
  description   TEXT,
  status        TEXT NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  secret        TEXT NOT NULL,
  failing_since TEXT,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX webhooks_user ON webhooks(user_id);

CREATE TABLE webhook_deliveries (
  id               INTEGER PRIMARY KEY,
  webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_seq        INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  TEXT,
  last_status_code INTEGER,
  last_error       TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id DESC);

CREATE TABLE webhook_attempts (
  id           INTEGER PRIMARY KEY,
  delivery_id  INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  status_code  INTEGER,
  error        TEXT,
  duration_ms  INTEGER NOT NULL,
  attempted_at TEXT NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id);

CREATE TABLE idempotency_keys (
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key           TEXT NOT NULL,
  request_hash  TEXT NOT NULL,
  status_code   INTEGER NOT NULL,
  response      TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE settings (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
) WITHOUT ROWID;
