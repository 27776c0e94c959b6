-- Running totals on the send log: the same as migrations/028_send_log_totals.sql, which says why.
ALTER TABLE send_log ADD COLUMN inbox_total bigint NOT NULL DEFAULT 0;
ALTER TABLE send_log ADD COLUMN address_total bigint NOT NULL DEFAULT 0;
UPDATE send_log SET inbox_total = t.inbox_n, address_total = t.address_n
  FROM (
    SELECT id,
      ROW_NUMBER() OVER (PARTITION BY inbox_id ORDER BY sent_at, id) AS inbox_n,
      ROW_NUMBER() OVER (PARTITION BY inbox_id, address ORDER BY sent_at, id) AS address_n
    FROM send_log
  ) AS t
  WHERE t.id = send_log.id;
CREATE INDEX send_log_inbox_total ON send_log(inbox_id, inbox_total);
CREATE INDEX send_log_address_total ON send_log(inbox_id, address, address_total);
