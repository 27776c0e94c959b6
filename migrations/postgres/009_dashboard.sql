-- The dashboard (issue 14): the same tables and columns as migrations/009_dashboard.sql.
ALTER TABLE users ADD COLUMN password_hash text COLLATE "C";
ALTER TABLE users ADD COLUMN admin smallint NOT NULL DEFAULT 0;
UPDATE users SET admin = 1 WHERE name = 'default';

CREATE TABLE dashboard_sessions (
  token_hash   text COLLATE "C" PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token   text COLLATE "C" NOT NULL,
  created_at   text COLLATE "C" NOT NULL,
  last_seen_at text COLLATE "C" NOT NULL,
  expires_at   text COLLATE "C" NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions(user_id);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions(expires_at);

CREATE TABLE sign_in_links (
  token_hash  text COLLATE "C" PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  text COLLATE "C" NOT NULL,
  expires_at  text COLLATE "C" NOT NULL
);
CREATE INDEX sign_in_links_expires ON sign_in_links(expires_at);

CREATE TABLE sign_in_failures (
  client        text COLLATE "C" PRIMARY KEY,
  window_start  text COLLATE "C" NOT NULL,
  failures      bigint NOT NULL
);
