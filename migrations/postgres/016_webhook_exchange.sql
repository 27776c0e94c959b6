-- What each webhook attempt sent and got back: the same shape as migrations/015_webhook_exchange.sql
-- (the URL and headers as sent, never the secret; the answer's first 2 KB and its size).
ALTER TABLE webhook_attempts ADD COLUMN request_url text COLLATE "C";
ALTER TABLE webhook_attempts ADD COLUMN request_headers text COLLATE "C";
ALTER TABLE webhook_attempts ADD COLUMN response_body text COLLATE "C";
ALTER TABLE webhook_attempts ADD COLUMN response_bytes bigint;
