-- Deposit transfers (D24): what each transaction sent to a session's deposit address, as
-- its logs and receipt show it. One row per (chain, transaction, session): several
-- Transfer logs of one transaction to one address are summed, and a transaction re-mined
-- after a reorg keeps its row (its block and log index move). Only `confirmed` rows count
-- towards the session's amount_received; a pending row whose transaction left the
-- canonical chain is deleted. `payment_id` is the payment that recorded the money.
CREATE TABLE deposit_transfers (
    chain_id          INTEGER NOT NULL,
    tx_hash           TEXT NOT NULL,
    checkout_session_id UUID NOT NULL REFERENCES checkout_sessions (id),
    token_address     TEXT NOT NULL,
    from_address      TEXT NOT NULL,
    amount_micros     BIGINT NOT NULL CHECK (amount_micros > 0),
    log_index         BIGINT NOT NULL,
    block_number      BIGINT NOT NULL,
    block_hash        TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'confirmed')),
    payment_id        UUID REFERENCES payments (id),
    seen_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, checkout_session_id),
    CHECK (payment_id IS NULL OR status = 'confirmed')
);
CREATE INDEX deposit_transfers_by_session ON deposit_transfers (checkout_session_id);
CREATE INDEX deposit_transfers_pending ON deposit_transfers (chain_id, block_number)
    WHERE status = 'pending';
-- Confirmed money not yet recorded as a payment (an underpaid session that expired).
CREATE INDEX deposit_transfers_unrecorded ON deposit_transfers (chain_id, checkout_session_id)
    WHERE status = 'confirmed' AND payment_id IS NULL;
-- The watcher reads the addresses of sessions that are open or ended recently.
CREATE INDEX checkout_sessions_deposit_watch ON checkout_sessions (chain_id, expires_at)
    WHERE deposit_address IS NOT NULL;

-- What a deposit payment received beyond its amount (D24). The money checks count it:
-- fee + merchant share = everything received, and refunds never exceed it.
ALTER TABLE payments ADD COLUMN overpaid_micros BIGINT NOT NULL DEFAULT 0
    CHECK (overpaid_micros >= 0);
DO $$
DECLARE c text;
BEGIN
    FOR c IN SELECT conname FROM pg_constraint
             WHERE conrelid = 'payments'::regclass AND contype = 'c'
               AND (pg_get_constraintdef(oid) LIKE '%(fee_micros + merchant_micros) = amount_micros%'
                    OR pg_get_constraintdef(oid) LIKE '%refunded_micros <= amount_micros%')
    LOOP
        EXECUTE format('ALTER TABLE payments DROP CONSTRAINT %I', c);
    END LOOP;
END $$;
ALTER TABLE payments
    ADD CONSTRAINT payments_money_adds_up
        CHECK (fee_micros + merchant_micros = amount_micros + overpaid_micros),
    ADD CONSTRAINT payments_refunds_within_received
        CHECK (refunded_micros <= amount_micros + overpaid_micros);
