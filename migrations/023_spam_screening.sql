-- Screening inbound mail (contract 16). `spam`: rspamd's verdict on a received message as JSON
-- ({score, required, action, symbols}), NULL when it was not checked. `include_spam`: a webhook
-- also gets email.received for mail filed into Spam (1) or not (0, the default).
-- `screening_counts`: GET /metrics's mailroom_screening_total by outcome, kept as rows so that
-- every node adds to the same counters and a restart loses none.
ALTER TABLE messages ADD COLUMN spam TEXT;
ALTER TABLE webhooks ADD COLUMN include_spam INTEGER NOT NULL DEFAULT 0;
CREATE TABLE screening_counts (
  outcome  TEXT PRIMARY KEY,
  count    INTEGER NOT NULL DEFAULT 0
);
