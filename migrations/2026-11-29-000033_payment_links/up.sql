-- Reusable payment links (D34): a product and its price behind one public URL; every
-- visit opens a checkout session that names the link. A link's completed count is read
-- from its sessions, never kept on the link.
CREATE TABLE payment_links (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    livemode boolean NOT NULL,
    name text NOT NULL,
    description text,
    -- Exactly one way to price: a token amount, a price in a currency, or bounds on
    -- what the buyer names (of the token, or in `custom_fiat` when set).
    amount_micros bigint CHECK (amount_micros > 0),
    price_micros bigint CHECK (price_micros > 0),
    price_currency text CHECK (price_currency IN ('USD', 'EUR')),
    custom_min_micros bigint CHECK (custom_min_micros > 0),
    custom_max_micros bigint,
    custom_fiat text CHECK (custom_fiat IN ('USD', 'EUR')),
    currency text NOT NULL CHECK (currency IN ('USDC', 'USDT', 'EURC')),
    recipient_address text NOT NULL,
    success_url text,
    metadata text NOT NULL,
    completed_limit integer CHECK (completed_limit > 0),
    active boolean NOT NULL,
    created_by_type text NOT NULL CHECK (created_by_type IN ('api_key', 'user')),
    created_by_id text NOT NULL,
    created_at timestamptz NOT NULL,
    CHECK (num_nonnulls(amount_micros, price_micros, custom_min_micros) = 1),
    CHECK ((price_micros IS NULL) = (price_currency IS NULL)),
    CHECK ((custom_min_micros IS NULL) = (custom_max_micros IS NULL)),
    CHECK (custom_max_micros >= custom_min_micros),
    CHECK (custom_fiat IS NULL OR custom_min_micros IS NOT NULL)
);
CREATE INDEX payment_links_scope ON payment_links (merchant_id, livemode, id DESC);

-- The link a session was opened from, and the session whose lapsed quote it replaced at a
-- new quote. Every existing row has neither, so the foreign keys are added NOT VALID (no
-- scan under the lock).
ALTER TABLE checkout_sessions
    ADD COLUMN payment_link_id uuid,
    ADD COLUMN requoted_from_id uuid,
    ADD CONSTRAINT checkout_sessions_payment_link_fk FOREIGN KEY (payment_link_id)
        REFERENCES payment_links (id) NOT VALID,
    ADD CONSTRAINT checkout_sessions_requoted_from_fk FOREIGN KEY (requoted_from_id)
        REFERENCES checkout_sessions (id) NOT VALID;
CREATE INDEX checkout_sessions_payment_link
    ON checkout_sessions (payment_link_id, status) WHERE payment_link_id IS NOT NULL;
