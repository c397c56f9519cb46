DROP INDEX payments_one_per_log;
DROP INDEX payments_one_per_session_tx;
ALTER TABLE payments ADD CONSTRAINT payments_chain_id_tx_hash_log_index_key UNIQUE (chain_id, tx_hash, log_index);
DROP INDEX payments_pending;
ALTER TABLE payments
    DROP COLUMN last_miss_head,
    DROP COLUMN receipt_misses,
    DROP COLUMN block_hash;
