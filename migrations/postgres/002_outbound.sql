-- Outbound delivery bookkeeping (issue 3). The raw message a delivery sends is the Sent copy's
-- message_raw row, so the queue holds no second copy of it.

-- When the last attempt ran, and what the receiving side (or the transport) answered.
ALTER TABLE deliveries ADD COLUMN last_attempt_at text COLLATE "C";
ALTER TABLE deliveries ADD COLUMN remote_mta text COLLATE "C";

-- Idempotency keys are kept 24 h; the outbound worker prunes older ones by this index.
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
