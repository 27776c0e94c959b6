-- An email.received event no longer copies the message's text and html into its payload: the
-- payload keeps empty placeholders and body_of names the message they are read from whenever
-- the event is sent (webhook, SSE, replay). Deleting a message for good first writes its body
-- back into those events.
ALTER TABLE events ADD COLUMN body_of bigint;
CREATE INDEX events_body_of ON events(body_of) WHERE body_of IS NOT NULL;
