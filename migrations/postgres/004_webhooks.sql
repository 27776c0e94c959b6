-- Webhooks: why a webhook was switched off, and attempts listed per webhook without a join scan.

ALTER TABLE webhooks ADD COLUMN disabled_reason text COLLATE "C";

ALTER TABLE webhook_attempts ADD COLUMN webhook_id text COLLATE "C";
CREATE INDEX webhook_attempts_hook ON webhook_attempts(webhook_id, id DESC);
