-- Relayed payments and deposit sweeps are followed by the same sender as the keeper's
-- charges (D26): every transaction signed at their nonces is an attempt, and their own
-- rows (and a sweep's transfer rows) name the newest. Those in flight across the upgrade
-- get their one attempt, with unknown fees (0: any raise is the chain's current price)
-- sent at block 0 (due for replacement at once), as 000011 did for charges.
INSERT INTO sender_attempts
    (tx_hash, chain_id, sender_address, nonce, raw_tx, max_fee_wei, priority_fee_wei, fill,
     sent_block, created_at)
SELECT tx_hash, chain_id, sender_address, nonce, raw_tx, 0, 0, false, 0, created_at
FROM relayed_transactions
WHERE status = 'sent'
ON CONFLICT (tx_hash) DO NOTHING;
INSERT INTO sender_attempts
    (tx_hash, chain_id, sender_address, nonce, raw_tx, max_fee_wei, priority_fee_wei, fill,
     sent_block, created_at)
SELECT tx_hash, chain_id, sender_address, nonce, raw_tx, 0, 0, false, 0, created_at
FROM deposit_sweeps
WHERE status = 'sent'
ON CONFLICT (tx_hash) DO NOTHING;
