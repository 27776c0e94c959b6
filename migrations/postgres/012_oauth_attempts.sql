-- The dashboard's "Connect" button for OAuth2 providers: the same table as
-- migrations/012_oauth_attempts.sql.
CREATE TABLE oauth_attempts (
  state_hash     text COLLATE "C" PRIMARY KEY,
  user_id        bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  provider       text COLLATE "C" NOT NULL,
  code_verifier  text COLLATE "C" NOT NULL,
  redirect_uri   text COLLATE "C" NOT NULL,
  login_hint     text COLLATE "C" NOT NULL DEFAULT '',
  created_at     text COLLATE "C" NOT NULL,
  expires_at     text COLLATE "C" NOT NULL
);
CREATE INDEX oauth_attempts_expires ON oauth_attempts(expires_at);
