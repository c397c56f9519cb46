DROP INDEX relayed_transactions_reverted_code;
DROP INDEX relayed_transactions_payer;
ALTER TABLE relayed_transactions DROP COLUMN payer_code_hash;
ALTER TABLE relayed_transactions DROP COLUMN relay_value;
ALTER TABLE relayed_transactions DROP COLUMN token_address;
