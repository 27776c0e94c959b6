-- Webhooks: why a webhook was switched off, and attempts listed per webhook without a join scan.

ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;

ALTER TABLE webhook_attempts ADD COLUMN webhook_id TEXT;
CREATE INDEX webhook_attempts_hook ON webhook_attempts(webhook_id, id DESC);
