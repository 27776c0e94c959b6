-- Several nodes on one database (contract 11, docs/decisions/several-nodes.md).

-- A queued outbound or webhook delivery is taken by one node at a time: the claim writes a fresh
-- claim_id and pushes next_attempt_at to the end of a lease read off the database's clock, so no
-- other node picks the row meanwhile and a dead node's rows fall due again when the lease ends.
-- The outcome of an attempt is recorded only under the claim_id it was taken with.
ALTER TABLE deliveries ADD COLUMN claim_id TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN claim_id TEXT;

-- Every running node, its heartbeat written every few seconds (GET /admin/v1/nodes).
CREATE TABLE nodes (
  id            TEXT PRIMARY KEY,
  version       TEXT NOT NULL,
  started_at    TEXT NOT NULL,
  last_seen_at  TEXT NOT NULL
);

-- Work one node at a time does: 'imap:<inbox id>' (who syncs an external inbox) and
-- 'job:<name>' (the Trash sweep and prunes). Held until expires_at, renewed by its node; another
-- takes it once it has expired. claim_id changes with every taking, so a node that lost a lease
-- can tell (fencing).
CREATE TABLE leases (
  name        TEXT PRIMARY KEY,
  node_id     TEXT NOT NULL,
  claim_id    TEXT NOT NULL,
  expires_at  TEXT NOT NULL
);
CREATE INDEX leases_node ON leases(node_id);
