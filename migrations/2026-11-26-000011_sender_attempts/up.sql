-- Every transaction signed at one of the service's nonces (D26): the first send and each
-- replacement (higher fees, or a 0-value transfer to itself that only uses the nonce up
-- once the work is no longer wanted). The work's own row (keeper_transactions) names the
-- newest attempt; any attempt may be the one that is mined.
CREATE TABLE sender_attempts (
    tx_hash text PRIMARY KEY,
    chain_id integer NOT NULL,
    sender_address text NOT NULL,
    nonce bigint NOT NULL CHECK (nonce >= 0),
    raw_tx bytea NOT NULL,
    max_fee_wei bigint NOT NULL CHECK (max_fee_wei >= 0),
    priority_fee_wei bigint NOT NULL CHECK (priority_fee_wei >= 0),
    fill boolean NOT NULL DEFAULT false,
    -- The head when it was broadcast: a replacement is due this many blocks later.
    sent_block bigint NOT NULL CHECK (sent_block >= 0),
    created_at timestamptz NOT NULL
);
CREATE INDEX sender_attempts_by_nonce ON sender_attempts (chain_id, sender_address, nonce);
-- Charges in flight across the upgrade: their one attempt, with unknown fees (0, so any
-- raise is the chain's current price) sent at block 0 (due for replacement at once).
INSERT INTO sender_attempts
    (tx_hash, chain_id, sender_address, nonce, raw_tx, max_fee_wei, priority_fee_wei, fill,
     sent_block, created_at)
SELECT tx_hash, chain_id, keeper_address, nonce, raw_tx, 0, 0, false, 0, created_at
FROM keeper_transactions
WHERE status = 'sent';
