ALTER TABLE relayed_transactions DROP COLUMN payer_address, DROP COLUMN valid_before;
