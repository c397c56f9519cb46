-- D17: a payment remembers the hash of the block it was seen in, so a re-check can tell a
-- reorg (the block at that height was replaced) from a lagging node (same block, no
-- receipt yet), and counts receipt misses once per head before it may be declared failed.
ALTER TABLE payments
    ADD COLUMN block_hash      TEXT,
    ADD COLUMN receipt_misses  INTEGER NOT NULL DEFAULT 0 CHECK (receipt_misses >= 0),
    ADD COLUMN last_miss_head  BIGINT;

-- The watcher's pending re-checks, oldest first per chain.
CREATE INDEX payments_pending ON payments (chain_id, id) WHERE status = 'pending';

-- A transaction re-mined after a reorg keeps its hash but may change log index: a
-- one-time payment is identified by (chain, transaction, session); recurring charges
-- (no session) keep (chain, transaction, log index).
ALTER TABLE payments DROP CONSTRAINT payments_chain_id_tx_hash_log_index_key;
CREATE UNIQUE INDEX payments_one_per_session_tx ON payments (chain_id, tx_hash, checkout_session_id)
    WHERE checkout_session_id IS NOT NULL;
CREATE UNIQUE INDEX payments_one_per_log ON payments (chain_id, tx_hash, log_index)
    WHERE checkout_session_id IS NULL;
