-- Screening inbound mail: the same shape as migrations/023_spam_screening.sql.
ALTER TABLE messages ADD COLUMN spam text COLLATE "C";
ALTER TABLE webhooks ADD COLUMN include_spam smallint NOT NULL DEFAULT 0;
CREATE TABLE screening_counts (
  outcome  text COLLATE "C" PRIMARY KEY,
  count    bigint NOT NULL DEFAULT 0
);
