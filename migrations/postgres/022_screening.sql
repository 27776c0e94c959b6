-- What screening found in a received message (contract 16), as JSON; NULL on mail not screened
-- (sent copies, drafts, mail stored before this migration), which reads as clear.
ALTER TABLE messages ADD COLUMN screening text COLLATE "C";
