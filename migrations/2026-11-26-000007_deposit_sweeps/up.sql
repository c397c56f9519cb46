-- Sweeps of deposit addresses (D24): `DepositFactory.sweepMany` transactions the worker
-- sent, with the nonce from the keeper's sequence (`keeper_nonces`, D26), the signed bytes
-- for re-broadcast, and once mined the gas and what it cost. A transfer row names the
-- sweep that moved it; a sweep that reverted or was dropped, or whose entry for a session
-- failed, gives its rows back (`sweep_tx_hash` NULL) for the next one.
CREATE TABLE deposit_sweeps (
    chain_id integer NOT NULL,
    sender_address text NOT NULL,
    nonce bigint NOT NULL,
    tx_hash text NOT NULL UNIQUE,
    raw_tx bytea NOT NULL,
    entries integer NOT NULL CHECK (entries > 0),
    status text NOT NULL DEFAULT 'sent'
        CHECK (status IN ('sent', 'mined', 'reverted', 'dropped')),
    failed_entries integer NOT NULL DEFAULT 0,
    gas_used bigint,
    gas_cost_wei numeric(78, 0),
    created_at timestamptz NOT NULL,
    last_broadcast_at timestamptz NOT NULL,
    mined_at timestamptz,
    PRIMARY KEY (chain_id, sender_address, nonce)
);
CREATE INDEX deposit_sweeps_sent ON deposit_sweeps (chain_id, nonce) WHERE status = 'sent';
ALTER TABLE deposit_transfers ADD COLUMN sweep_tx_hash text;
CREATE INDEX deposit_transfers_unswept ON deposit_transfers (chain_id, checkout_session_id)
    WHERE status = 'confirmed' AND sweep_tx_hash IS NULL;
