DROP INDEX payments_pending;
ALTER TABLE payments
    DROP COLUMN last_miss_head,
    DROP COLUMN receipt_misses,
    DROP COLUMN block_hash;
