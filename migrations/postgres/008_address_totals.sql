-- A message's address lists are stored cut to their first 100 entries. address_totals keeps, as
-- JSON, the whole count of each list that was cut ({"to": 200000}); NULL when nothing was.
ALTER TABLE messages ADD COLUMN address_totals text COLLATE "C";
