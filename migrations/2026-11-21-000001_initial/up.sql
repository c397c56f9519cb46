-- stablepay schema. Money is BIGINT micro-units (6 decimals); ids are UUIDv7 so
-- `ORDER BY id DESC` is newest first and the id is the pagination cursor.

CREATE TABLE merchants (
    id          UUID PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    fee_tier    TEXT NOT NULL CHECK (fee_tier IN ('standard', 'growth', 'scale', 'custom')),
    fee_bps     INTEGER NOT NULL CHECK (fee_bps BETWEEN 0 AND 1000),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id                  UUID PRIMARY KEY,
    merchant_id         UUID NOT NULL REFERENCES merchants (id),
    livemode            BOOLEAN NOT NULL,
    key_sha256          BYTEA NOT NULL UNIQUE CHECK (length(key_sha256) = 32),
    last4               TEXT NOT NULL,
    rate_limit_per_min  INTEGER CHECK (rate_limit_per_min > 0),
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at          TIMESTAMPTZ
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id, id DESC);

-- Settlement wallets are per merchant, not per mode (D6).
CREATE TABLE wallets (
    id           UUID PRIMARY KEY,
    merchant_id  UUID NOT NULL REFERENCES merchants (id),
    address      TEXT NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
    chain_id     INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    status       TEXT NOT NULL CHECK (status IN ('pending', 'verified', 'revoked')),
    verified_at  TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (merchant_id, address)
);
CREATE INDEX wallets_merchant ON wallets (merchant_id, id DESC);

CREATE TABLE wallet_challenges (
    id          UUID PRIMARY KEY,
    wallet_id   UUID NOT NULL REFERENCES wallets (id),
    nonce       TEXT NOT NULL UNIQUE,
    message     TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX wallet_challenges_latest ON wallet_challenges (wallet_id, id DESC);

-- One customer per (merchant, mode, payer address) (D7).
CREATE TABLE customers (
    id           UUID PRIMARY KEY,
    merchant_id  UUID NOT NULL REFERENCES merchants (id),
    livemode     BOOLEAN NOT NULL,
    address      TEXT NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
    created_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (merchant_id, livemode, address)
);

CREATE TABLE subscriptions (
    id                     UUID PRIMARY KEY,
    merchant_id            UUID NOT NULL REFERENCES merchants (id),
    livemode               BOOLEAN NOT NULL,
    status                 TEXT NOT NULL CHECK (status IN ('pending', 'active', 'past_due', 'paused', 'canceled', 'expired')),
    title                  TEXT NOT NULL,
    customer_id            UUID NOT NULL REFERENCES customers (id),
    wallet_address         TEXT NOT NULL,
    chain_id               INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    chain_subscription_id  TEXT NOT NULL,
    chain_plan_id          TEXT NOT NULL,
    amount_micros          BIGINT NOT NULL CHECK (amount_micros > 0),
    fee_micros             BIGINT NOT NULL CHECK (fee_micros >= 0),
    interval_seconds       BIGINT NOT NULL CHECK (interval_seconds > 0),
    next_payment_at        TIMESTAMPTZ,
    canceled_at            TIMESTAMPTZ,
    retry_count            INTEGER NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
    next_retry_at          TIMESTAMPTZ,
    last_failure_code      TEXT,
    created_at             TIMESTAMPTZ NOT NULL,
    UNIQUE (chain_id, chain_subscription_id)
);
CREATE INDEX subscriptions_list ON subscriptions (merchant_id, livemode, id DESC);
CREATE INDEX subscriptions_by_status ON subscriptions (merchant_id, livemode, status, id DESC);
CREATE INDEX subscriptions_by_wallet ON subscriptions (merchant_id, livemode, wallet_address, id DESC);
CREATE INDEX subscriptions_due ON subscriptions (next_payment_at) WHERE status IN ('active', 'past_due');

CREATE TABLE checkout_sessions (
    id                  UUID PRIMARY KEY,
    merchant_id         UUID NOT NULL REFERENCES merchants (id),
    livemode            BOOLEAN NOT NULL,
    mode                TEXT NOT NULL CHECK (mode IN ('payment', 'subscription')),
    status              TEXT NOT NULL CHECK (status IN ('open', 'completed', 'expired')),
    title               TEXT NOT NULL,
    description         TEXT,
    amount_micros       BIGINT NOT NULL CHECK (amount_micros > 0),
    currency            TEXT NOT NULL CHECK (currency IN ('USDC', 'USDT')),
    fee_bps             INTEGER NOT NULL CHECK (fee_bps BETWEEN 0 AND 1000),
    fee_micros          BIGINT NOT NULL CHECK (fee_micros >= 0),
    net_micros          BIGINT NOT NULL CHECK (net_micros >= 0),
    fee_tier            TEXT NOT NULL,
    chain_id            INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    token_address       TEXT NOT NULL,
    interval_seconds    BIGINT,
    chain_plan_id       TEXT,
    recipient_address   TEXT NOT NULL,
    customer_id         UUID REFERENCES customers (id),
    subscription_id     UUID REFERENCES subscriptions (id),
    customer_reference  TEXT,
    success_url         TEXT,
    cancel_url          TEXT,
    wallet_address      TEXT,
    tx_hash             TEXT,
    -- The merchant's metadata object as sent: TEXT, not JSONB, so it echoes verbatim.
    metadata            TEXT NOT NULL DEFAULT '{}',
    -- keccak256(session id): the single-use on-chain payment reference.
    ref                 BYTEA UNIQUE,
    expires_at          TIMESTAMPTZ NOT NULL,
    completed_at        TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL,
    CHECK (fee_micros + net_micros = amount_micros)
);
CREATE INDEX checkout_sessions_list ON checkout_sessions (merchant_id, livemode, id DESC);
CREATE INDEX checkout_sessions_by_status ON checkout_sessions (merchant_id, livemode, status, id DESC);
CREATE INDEX checkout_sessions_by_reference ON checkout_sessions (merchant_id, livemode, customer_reference, id DESC)
    WHERE customer_reference IS NOT NULL;
CREATE INDEX checkout_sessions_open_expiry ON checkout_sessions (merchant_id, livemode, expires_at) WHERE status = 'open';

CREATE TABLE payments (
    id                   UUID PRIMARY KEY,
    merchant_id          UUID NOT NULL REFERENCES merchants (id),
    livemode             BOOLEAN NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'failed', 'refunded')),
    charge_type          TEXT NOT NULL CHECK (charge_type IN ('one_time', 'recurring')),
    subscription_id      UUID REFERENCES subscriptions (id),
    customer_id          UUID REFERENCES customers (id),
    checkout_session_id  UUID REFERENCES checkout_sessions (id),
    customer_reference   TEXT,
    amount_micros        BIGINT NOT NULL CHECK (amount_micros > 0),
    currency             TEXT NOT NULL CHECK (currency IN ('USDC', 'USDT')),
    fee_micros           BIGINT NOT NULL CHECK (fee_micros >= 0),
    merchant_micros      BIGINT NOT NULL CHECK (merchant_micros >= 0),
    refunded_micros      BIGINT NOT NULL DEFAULT 0 CHECK (refunded_micros >= 0),
    wallet_address       TEXT NOT NULL,
    chain_id             INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    token_address        TEXT NOT NULL,
    tx_hash              TEXT NOT NULL,
    log_index            BIGINT NOT NULL,
    block_number         BIGINT NOT NULL,
    metadata             TEXT NOT NULL DEFAULT '{}',
    created_at           TIMESTAMPTZ NOT NULL,
    UNIQUE (chain_id, tx_hash, log_index),
    CHECK (fee_micros + merchant_micros = amount_micros),
    CHECK (refunded_micros <= amount_micros)
);
CREATE INDEX payments_list ON payments (merchant_id, livemode, id DESC);
CREATE INDEX payments_by_status ON payments (merchant_id, livemode, status, id DESC);
CREATE INDEX payments_by_session ON payments (checkout_session_id) WHERE checkout_session_id IS NOT NULL;
CREATE INDEX payments_by_subscription ON payments (subscription_id, id DESC) WHERE subscription_id IS NOT NULL;

CREATE TABLE refunds (
    id              UUID PRIMARY KEY,
    merchant_id     UUID NOT NULL REFERENCES merchants (id),
    livemode        BOOLEAN NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('succeeded')),
    payment_id      UUID NOT NULL REFERENCES payments (id),
    amount_micros   BIGINT NOT NULL CHECK (amount_micros > 0),
    currency        TEXT NOT NULL CHECK (currency IN ('USDC', 'USDT')),
    chain_id        INTEGER NOT NULL CHECK (chain_id IN (8453, 84532)),
    token_address   TEXT NOT NULL,
    from_address    TEXT NOT NULL,
    to_address      TEXT NOT NULL,
    tx_hash         TEXT NOT NULL,
    log_index       BIGINT NOT NULL,
    reason          TEXT CHECK (length(reason) <= 500),
    created_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (chain_id, tx_hash, log_index)
);
CREATE INDEX refunds_list ON refunds (merchant_id, livemode, id DESC);
CREATE INDEX refunds_by_payment ON refunds (payment_id, id DESC);

CREATE TABLE payment_attempts (
    id               UUID PRIMARY KEY,
    merchant_id      UUID NOT NULL REFERENCES merchants (id),
    livemode         BOOLEAN NOT NULL,
    subscription_id  UUID NOT NULL REFERENCES subscriptions (id),
    payment_id       UUID REFERENCES payments (id),
    status           TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
    attempt_number   INTEGER NOT NULL CHECK (attempt_number > 0),
    period_key       TIMESTAMPTZ NOT NULL,
    failure_code     TEXT,
    failure_reason   TEXT,
    tx_hash          TEXT,
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX payment_attempts_list ON payment_attempts (merchant_id, livemode, id DESC);
CREATE INDEX payment_attempts_by_subscription ON payment_attempts (subscription_id, id DESC);
CREATE INDEX payment_attempts_by_status ON payment_attempts (merchant_id, livemode, status, id DESC);

CREATE TABLE webhook_endpoints (
    id                          UUID PRIMARY KEY,
    merchant_id                 UUID NOT NULL REFERENCES merchants (id),
    livemode                    BOOLEAN NOT NULL,
    url                         TEXT NOT NULL CHECK (length(url) <= 2000),
    enabled_events              TEXT[] NOT NULL DEFAULT '{}',
    status                      TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
    description                 TEXT,
    -- Signing secrets are AEAD-encrypted with STABLEPAY_SECRETS_KEY (nonce || ciphertext).
    secret_ciphertext           BYTEA NOT NULL,
    previous_secret_ciphertext  BYTEA,
    previous_secret_expires_at  TIMESTAMPTZ,
    created_at                  TIMESTAMPTZ NOT NULL,
    -- Deleted endpoints keep their delivery history.
    deleted_at                  TIMESTAMPTZ
);
CREATE INDEX webhook_endpoints_list ON webhook_endpoints (merchant_id, livemode, id DESC) WHERE deleted_at IS NULL;

-- The outbox: one logical event, written in the same transaction as the change it reports.
CREATE TABLE events (
    id           UUID PRIMARY KEY,
    merchant_id  UUID NOT NULL REFERENCES merchants (id),
    livemode     BOOLEAN NOT NULL,
    type         TEXT NOT NULL,
    data         TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL
);

-- One delivery record per (event, endpoint) and per resend (D13). Every attempt updates it.
CREATE TABLE webhook_events (
    id                UUID PRIMARY KEY,
    event_id          UUID REFERENCES events (id),
    merchant_id       UUID NOT NULL REFERENCES merchants (id),
    livemode          BOOLEAN NOT NULL,
    type              TEXT NOT NULL,
    endpoint_id       UUID NOT NULL REFERENCES webhook_endpoints (id),
    status            TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts          INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at   TIMESTAMPTZ,
    last_attempt_at   TIMESTAMPTZ,
    last_error        TEXT,
    response_status   INTEGER,
    resend_of         UUID REFERENCES webhook_events (id),
    payload           TEXT NOT NULL,
    lease_until       TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_events_list ON webhook_events (merchant_id, livemode, id DESC);
CREATE INDEX webhook_events_by_status ON webhook_events (merchant_id, livemode, status, id DESC);
CREATE INDEX webhook_events_by_type ON webhook_events (merchant_id, livemode, type, id DESC);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_events_resends ON webhook_events (resend_of) WHERE resend_of IS NOT NULL;

-- Idempotency keys (D14): scope (merchant, mode, method + route, key), 24 h.
CREATE TABLE idempotency_keys (
    merchant_id      UUID NOT NULL REFERENCES merchants (id),
    livemode         BOOLEAN NOT NULL,
    route            TEXT NOT NULL,
    key              TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 200),
    request_sha256   BYTEA NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('processing', 'completed')),
    response_status  INTEGER,
    response_body    TEXT,
    locked_at        TIMESTAMPTZ NOT NULL,
    expires_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (merchant_id, livemode, route, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Per-chain watcher cursor.
CREATE TABLE chain_cursors (
    chain_id      INTEGER PRIMARY KEY,
    next_block    BIGINT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
