-- What each webhook attempt sent and got back, for the dashboard's delivery page: the URL and the
-- Standard Webhooks headers as sent (webhook-id, -timestamp, -signature; never the secret) and
-- the first 2 KB of the answer's body with how many bytes it had (read up to 64 KB). The body
-- sent is the event's own, kept in `events`. NULL on attempts recorded before this migration.
ALTER TABLE webhook_attempts ADD COLUMN request_url TEXT;
ALTER TABLE webhook_attempts ADD COLUMN request_headers TEXT;
ALTER TABLE webhook_attempts ADD COLUMN response_body TEXT;
ALTER TABLE webhook_attempts ADD COLUMN response_bytes INTEGER;
