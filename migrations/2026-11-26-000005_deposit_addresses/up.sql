-- Deposit addresses (D24): a payment session on a chain with a DepositFactory carries the
-- CREATE2 address of its forwarder (lower-case hex) and the confirmed total received there.
ALTER TABLE checkout_sessions
    ADD COLUMN deposit_address text,
    ADD COLUMN amount_received_micros bigint NOT NULL DEFAULT 0
        CHECK (amount_received_micros >= 0);
-- The watcher maps a Transfer's recipient to its session.
CREATE UNIQUE INDEX checkout_sessions_deposit_address
    ON checkout_sessions (chain_id, deposit_address) WHERE deposit_address IS NOT NULL;
