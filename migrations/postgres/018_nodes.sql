-- Several nodes on one database: the same columns and tables as migrations/018_nodes.sql, which
-- says what they hold.
ALTER TABLE deliveries ADD COLUMN claim_id text COLLATE "C";
ALTER TABLE webhook_deliveries ADD COLUMN claim_id text COLLATE "C";

CREATE TABLE nodes (
  id            text COLLATE "C" PRIMARY KEY,
  version       text COLLATE "C" NOT NULL,
  started_at    text COLLATE "C" NOT NULL,
  last_seen_at  text COLLATE "C" NOT NULL
);

CREATE TABLE leases (
  name        text COLLATE "C" PRIMARY KEY,
  node_id     text COLLATE "C" NOT NULL,
  claim_id    text COLLATE "C" NOT NULL,
  expires_at  text COLLATE "C" NOT NULL
);
CREATE INDEX leases_node ON leases(node_id);
