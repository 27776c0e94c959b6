-- The dashboard's "Connect" button for OAuth2 providers (issue 17): each authorization attempt
-- is a row, so the provider's redirect back may reach any node (ARCHITECTURE rule 8). The state
-- is stored as its SHA-256; the PKCE verifier as it is (it is worth nothing without the one-use
-- code, which is never stored). A row is used once and lives 10 minutes.
CREATE TABLE oauth_attempts (
  state_hash     TEXT PRIMARY KEY,
  user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider       TEXT NOT NULL,
  code_verifier  TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  login_hint     TEXT NOT NULL DEFAULT '',
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL
);
CREATE INDEX oauth_attempts_expires ON oauth_attempts(expires_at);
