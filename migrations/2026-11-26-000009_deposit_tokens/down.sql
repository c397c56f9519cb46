ALTER TABLE deposit_transfers RENAME COLUMN arrived_at TO seen_at;
ALTER TABLE deposit_transfers DROP CONSTRAINT deposit_transfers_pkey;
ALTER TABLE deposit_transfers ADD PRIMARY KEY (chain_id, tx_hash, checkout_session_id);
