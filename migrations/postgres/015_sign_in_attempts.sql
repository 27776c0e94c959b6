-- Sign-in attempts per client address and per user name: the same shape as
-- migrations/015_sign_in_attempts.sql, which says what the rows mean.
CREATE TABLE sign_in_attempts (
  subject       text COLLATE "C" PRIMARY KEY,
  window_start  text COLLATE "C" NOT NULL,
  attempts      bigint NOT NULL
);
INSERT INTO sign_in_attempts (subject, window_start, attempts)
  SELECT 'client:' || client, window_start, failures FROM sign_in_failures;
DROP TABLE sign_in_failures;
