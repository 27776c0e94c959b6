-- Several nodes on one database: the same columns and table as migrations/026_shared_limits.sql,
-- which says what they hold.
ALTER TABLE idempotency_keys ADD COLUMN claim_id text COLLATE "C";
ALTER TABLE idempotency_keys ADD COLUMN held_until text COLLATE "C";

CREATE TABLE rate_windows (
  subject       text COLLATE "C" PRIMARY KEY,
  window_start  text COLLATE "C" NOT NULL,
  hits          bigint NOT NULL
);
CREATE INDEX rate_windows_start ON rate_windows(window_start);
