-- Running totals on the send log (docs/decisions/inbox-settings.md, "Counting"): each row carries
-- how many recipients its inbox had counted, and how many for its address, up to and including
-- it. A window's count is then the newest total minus the total of the window's first row, plus
-- one: two index look-ups however many sends the window holds (it was a scan of them all, once
-- for the limits and once for the loop guard, in every send).
ALTER TABLE send_log ADD COLUMN inbox_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE send_log ADD COLUMN address_total INTEGER NOT NULL DEFAULT 0;
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
