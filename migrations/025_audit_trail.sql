-- The audit trail (contract 15): one row per request to a state-changing route or tool of any
-- door, refused ones included. `seq` orders the chain; `hash` is SHA-256 of the previous row's
-- hash (kept in prev_hash, so the oldest record left after pruning can still be checked), a
-- newline and the record's canonical JSON. `user_id` (whose trail it is; NULL for an
-- admin action on no user) is not part of the record. No foreign keys: a record outlives the
-- user, key or inbox it names, until MAILROOM_AUDIT_RETENTION_DAYS prunes it.
CREATE TABLE audit_log (
  seq         INTEGER PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  at          TEXT NOT NULL,
  user_id     INTEGER,
  actor_kind  TEXT NOT NULL,
  actor_id    TEXT,
  door        TEXT NOT NULL,
  action      TEXT NOT NULL,
  account     TEXT,
  target      TEXT,
  outcome     TEXT NOT NULL,
  request_id  TEXT,
  prev_hash   TEXT NOT NULL,
  hash        TEXT NOT NULL
);
CREATE INDEX audit_log_user ON audit_log(user_id, seq);
CREATE INDEX audit_log_at ON audit_log(at);
