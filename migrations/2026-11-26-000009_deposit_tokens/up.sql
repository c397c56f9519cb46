-- Other configured tokens sent to a deposit address are forwarded and recorded too (D24):
-- one transaction may send two tokens to one address, so the token joins the key.
ALTER TABLE deposit_transfers DROP CONSTRAINT deposit_transfers_pkey;
ALTER TABLE deposit_transfers
    ADD PRIMARY KEY (chain_id, tx_hash, checkout_session_id, token_address);
-- When the money arrived: the watcher's first sight, or, when it first saw it after the
-- session expired, the time of the block that carried it (a lagging watcher never turns
-- money sent in time into late money).
ALTER TABLE deposit_transfers RENAME COLUMN seen_at TO arrived_at;
