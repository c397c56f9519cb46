-- Reversals (D32): a confirmed payment whose transaction a reorg took out of the
-- canonical chain has its entries reversed in the ledger and is failed; `reversed` says
-- so, and only the re-check of booked payments books it again. Those re-checks find the
-- booked payments of a trailing block window by chain and block.
ALTER TABLE payments ADD COLUMN reversed boolean NOT NULL DEFAULT false;
CREATE INDEX payments_booked_by_block ON payments (chain_id, block_number, id)
    WHERE status IN ('confirmed', 'refunded') OR reversed;
