-- What screening found in a received message (contract 16), worked out when it was parsed and
-- kept as JSON ({"verdict":"review","reasons":["hidden_text"],"hidden":"..."}) so that lists and
-- reads do not work it out again. NULL on mail not screened: sent copies, drafts, and mail
-- stored before this migration, which read as clear (docs/decisions/screening.md).
ALTER TABLE messages ADD COLUMN screening TEXT;
