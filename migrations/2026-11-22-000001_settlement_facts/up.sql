-- D17: a payment remembers the hash of the block it was seen in, so a re-check can tell a
-- reorg (the block at that height was replaced) from a lagging node (same block, no
-- receipt yet), and counts receipt misses once per head before it may be declared failed.
ALTER TABLE payments
    ADD COLUMN block_hash      TEXT,
    ADD COLUMN receipt_misses  INTEGER NOT NULL DEFAULT 0 CHECK (receipt_misses >= 0),
    ADD COLUMN last_miss_head  BIGINT;

-- The watcher's pending re-checks, oldest first per chain.
CREATE INDEX payments_pending ON payments (chain_id, id) WHERE status = 'pending';
