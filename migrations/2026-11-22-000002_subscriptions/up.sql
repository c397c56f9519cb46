-- Subscriptions (D10, D19, D20): registered plans, the terms each subscription bills, the
-- billing claim, per-period payments, and the keeper's nonce manager.

-- Plans read from the chain when a merchant opened a subscription checkout with them.
CREATE TABLE subscription_plans (
    chain_id           INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    manager_address    TEXT NOT NULL,
    plan_id            TEXT NOT NULL,
    merchant_id        UUID NOT NULL REFERENCES merchants (id),
    token_address      TEXT NOT NULL,
    recipient_address  TEXT NOT NULL,
    amount_micros      BIGINT NOT NULL CHECK (amount_micros > 0),
    interval_seconds   BIGINT NOT NULL CHECK (interval_seconds > 0),
    created_at         TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (chain_id, manager_address, plan_id, merchant_id)
);

-- No subscription row was ever written before this migration (nothing created them), so
-- the new NOT NULL columns need no backfill.
ALTER TABLE subscriptions
    ADD COLUMN manager_address      TEXT NOT NULL,
    ADD COLUMN recipient_address    TEXT NOT NULL,
    ADD COLUMN token_address        TEXT NOT NULL,
    ADD COLUMN checkout_session_id  UUID REFERENCES checkout_sessions (id),
    ADD COLUMN customer_reference   TEXT,
    ADD COLUMN metadata             TEXT NOT NULL DEFAULT '{}',
    -- Bumped by every billing write: writes are conditional on the version they read.
    ADD COLUMN version              BIGINT NOT NULL DEFAULT 0,
    -- A worker's claim on a due subscription (FOR UPDATE SKIP LOCKED + lease).
    ADD COLUMN billing_lease_until  TIMESTAMPTZ;
CREATE INDEX subscriptions_retry_due ON subscriptions (next_retry_at) WHERE status = 'past_due';
CREATE INDEX subscriptions_by_recipient ON subscriptions (merchant_id, recipient_address);

-- A recurring charge that failed before any transaction was sent has no transaction.
ALTER TABLE payments
    ALTER COLUMN tx_hash DROP NOT NULL,
    ALTER COLUMN log_index DROP NOT NULL,
    ALTER COLUMN block_number DROP NOT NULL,
    ADD COLUMN period_key TIMESTAMPTZ,
    ADD CONSTRAINT payments_onchain_unless_failed_charge CHECK (
        (tx_hash IS NOT NULL AND log_index IS NOT NULL AND block_number IS NOT NULL)
        OR (status = 'failed' AND charge_type = 'recurring')),
    ADD CONSTRAINT payments_recurring_have_period CHECK (
        charge_type = 'one_time' OR (subscription_id IS NOT NULL AND period_key IS NOT NULL));
-- One payment per billing period: a retry that succeeds turns the period's failed record
-- into the confirmed one, so a period can never be paid twice in the books.
CREATE UNIQUE INDEX payments_one_per_period ON payments (subscription_id, period_key)
    WHERE charge_type = 'recurring';
CREATE INDEX payment_attempts_by_period ON payment_attempts (subscription_id, period_key);

-- D19: one nonce sequence per (chain, keeper); every nonce taken is stored with its
-- signed transaction in the same database transaction, so there are no gaps or reuse,
-- and a dropped transaction is re-broadcast from here after a restart.
CREATE TABLE keeper_nonces (
    chain_id        INTEGER NOT NULL,
    keeper_address  TEXT NOT NULL,
    next_nonce      BIGINT NOT NULL CHECK (next_nonce >= 0),
    PRIMARY KEY (chain_id, keeper_address)
);
CREATE TABLE keeper_transactions (
    chain_id           INTEGER NOT NULL,
    keeper_address     TEXT NOT NULL,
    nonce              BIGINT NOT NULL,
    subscription_id    UUID NOT NULL REFERENCES subscriptions (id),
    period_key         TIMESTAMPTZ NOT NULL,
    tx_hash            TEXT NOT NULL UNIQUE,
    raw_tx             BYTEA NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('sent', 'done')),
    created_at         TIMESTAMPTZ NOT NULL,
    last_broadcast_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (chain_id, keeper_address, nonce)
);
CREATE INDEX keeper_transactions_open ON keeper_transactions (chain_id, nonce) WHERE status = 'sent';
CREATE INDEX keeper_transactions_by_subscription ON keeper_transactions (subscription_id) WHERE status = 'sent';
