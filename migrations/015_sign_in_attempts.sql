-- Sign-in attempts, counted when they start (contract 12: attempts in flight count), per client
-- address ('client:<address>') and per user name ('name:<sha256 of the name>', so a password
-- typed into the name field is not kept), in fixed windows from the first attempt. An attempt
-- reserves a place in both windows in one statement before its password is checked; a right
-- password gives its place back (src/store/dashboard-sessions.ts). Replaces sign_in_failures,
-- which counted failures per address after the check, so attempts sent together were all checked.
CREATE TABLE sign_in_attempts (
  subject       TEXT PRIMARY KEY,
  window_start  TEXT NOT NULL,
  attempts      INTEGER NOT NULL
);
INSERT INTO sign_in_attempts (subject, window_start, attempts)
  SELECT 'client:' || client, window_start, failures FROM sign_in_failures;
DROP TABLE sign_in_failures;
