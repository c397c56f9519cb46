-- One-signature payments the service's relayer sent (D23, D26): one per checkout session,
-- with the nonce taken from the same sequence as the keeper's charges (`keeper_nonces`),
-- the signed bytes for re-broadcast, and once mined the gas it used and what it cost.
CREATE TABLE relayed_transactions (
    chain_id integer NOT NULL,
    sender_address text NOT NULL,
    nonce bigint NOT NULL,
    checkout_session_id uuid NOT NULL,
    tx_hash text NOT NULL UNIQUE,
    raw_tx bytea NOT NULL,
    -- `reverted` (mined, failed) and `dropped` (its nonce went to another transaction)
    -- leave the session payable again.
    status text NOT NULL DEFAULT 'sent'
        CHECK (status IN ('sent', 'mined', 'reverted', 'dropped')),
    gas_used bigint,
    gas_cost_wei numeric(78, 0),
    created_at timestamptz NOT NULL,
    last_broadcast_at timestamptz NOT NULL,
    mined_at timestamptz,
    PRIMARY KEY (chain_id, sender_address, nonce)
);
-- At most one live relayed transaction per session.
CREATE UNIQUE INDEX relayed_transactions_session ON relayed_transactions (checkout_session_id)
    WHERE status IN ('sent', 'mined');
CREATE INDEX relayed_transactions_sent ON relayed_transactions (chain_id, nonce)
    WHERE status = 'sent';
