ALTER TABLE relayed_transactions DROP COLUMN fill_data;
ALTER TABLE relayed_transactions DROP COLUMN fill_to;
