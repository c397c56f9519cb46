-- Dashboard accounts (D21): users belong to one merchant; passwords are argon2id PHC
-- strings; sessions and setup links are stored only as SHA-256 hashes.
CREATE TABLE dashboard_users (
    id                  UUID PRIMARY KEY,
    merchant_id         UUID NOT NULL REFERENCES merchants (id),
    email               TEXT NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    password_hash       TEXT,
    setup_sha256        BYTEA UNIQUE CHECK (length(setup_sha256) = 32),
    setup_expires_at    TIMESTAMPTZ,
    totp_secret         BYTEA,
    -- The last TOTP time step accepted at sign-in: a code is never accepted twice.
    totp_last_step      BIGINT,
    failed_logins       INTEGER NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
    locked_until        TIMESTAMPTZ,
    disabled_at         TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id, id DESC);

CREATE TABLE dashboard_sessions (
    id             UUID PRIMARY KEY,
    user_id        UUID NOT NULL REFERENCES dashboard_users (id),
    token_sha256   BYTEA NOT NULL UNIQUE CHECK (length(token_sha256) = 32),
    created_at     TIMESTAMPTZ NOT NULL,
    last_seen_at   TIMESTAMPTZ NOT NULL,
    revoked_at     TIMESTAMPTZ
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id) WHERE revoked_at IS NULL;

-- Shown on the Developers page; written at most once a minute per key.
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMPTZ;

-- The dashboard lists recent deliveries per endpoint (the spec's "lists recent
-- deliveries per endpoint"); also the API's `endpoint` filter on /webhook_events.
CREATE INDEX webhook_events_by_endpoint ON webhook_events (merchant_id, livemode, endpoint_id, id DESC);
-- Home page totals by day.
CREATE INDEX payments_by_created ON payments (merchant_id, livemode, created_at);
-- Customers as seen in payments, and each one's payments.
CREATE INDEX customers_list ON customers (merchant_id, livemode, id DESC);
CREATE INDEX payments_by_customer ON payments (merchant_id, livemode, customer_id);
