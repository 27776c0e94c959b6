-- The dashboard (issue 14). Users gain a password (scrypt, with its salt and parameters, in one
-- text: see src/mailbox/operations/passwords.ts) and an admin flag; the first-start user
-- "default" is an admin. Sessions, one-time sign-in links and sign-in failure counts are rows,
-- so any node serving the dashboard sees them (ARCHITECTURE rule 8). Tokens are stored only as
-- their SHA-256.
ALTER TABLE users ADD COLUMN password_hash TEXT;
ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
UPDATE users SET admin = 1 WHERE name = 'default';

CREATE TABLE dashboard_sessions (
  token_hash   TEXT PRIMARY KEY,
  user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token   TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions(user_id);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions(expires_at);

CREATE TABLE sign_in_links (
  token_hash  TEXT PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL
);
CREATE INDEX sign_in_links_expires ON sign_in_links(expires_at);

-- Failed sign-ins per client address in fixed windows from the first failure.
CREATE TABLE sign_in_failures (
  client        TEXT PRIMARY KEY,
  window_start  TEXT NOT NULL,
  failures      INTEGER NOT NULL
);
