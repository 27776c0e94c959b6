-- GET /metrics counts the event log by type at every scrape; this index keeps that count off the
-- payload pages.
CREATE INDEX events_type ON events(type);
