-- Several nodes on one database (contract 11, docs/decisions/several-nodes.md).

-- An Idempotency-Key is reserved before its request does the work: a row with status_code 0 and
-- an empty response, held by the request's claim_id until held_until (the database's clock),
-- renewed while the request runs. A twin request on any node finds it and waits for the answer;
-- a reservation whose request died is taken over once held_until has passed. The answer replaces
-- the reservation (status_code 200, the response).
ALTER TABLE idempotency_keys ADD COLUMN claim_id TEXT;
ALTER TABLE idempotency_keys ADD COLUMN held_until TEXT;

-- Fixed windows of a shared limit, counted by one upsert each (the per-key API rate limit on
-- PostgreSQL: 'key:<key id>'): when the window started (the database's clock) and what it holds.
CREATE TABLE rate_windows (
  subject       TEXT PRIMARY KEY,
  window_start  TEXT NOT NULL,
  hits          INTEGER NOT NULL
);
CREATE INDEX rate_windows_start ON rate_windows(window_start);
