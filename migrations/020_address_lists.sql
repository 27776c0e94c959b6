-- Allow and block lists and suppressions (contract 14, issue 28). An entry is an address or a
-- domain, stored lower-case, on a send or receive list of allow or block entries, for one inbox
-- (inbox_id) or for all of a user's inboxes (inbox_id NULL). One entry per place: the unique
-- index counts a user-wide entry as inbox 0, since NULLs never clash in a unique index.
CREATE TABLE address_lists (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inbox_id    INTEGER REFERENCES inboxes(id) ON DELETE CASCADE,
  direction   TEXT NOT NULL,
  type        TEXT NOT NULL,
  entry       TEXT NOT NULL,
  reason      TEXT,
  created_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX address_lists_place
  ON address_lists(user_id, COALESCE(inbox_id, 0), direction, type, entry);

-- Addresses a user's mail is no longer sent to: a permanent delivery failure put them here.
CREATE TABLE suppressions (
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  address     TEXT NOT NULL,
  reason      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (user_id, address)
);
