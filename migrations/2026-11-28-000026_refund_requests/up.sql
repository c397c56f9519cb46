-- Refund requests (D32): the customer names and confirms where a refund goes; the refund
-- reported for a request must be a transfer there. Every step is kept with who and when.
CREATE TABLE refund_requests (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    livemode boolean NOT NULL,
    payment_id uuid NOT NULL REFERENCES payments (id),
    amount_micros bigint NOT NULL CHECK (amount_micros > 0),
    currency text NOT NULL,
    chain_id integer NOT NULL,
    token_address text NOT NULL,
    reason text,
    -- `expired` is read from expires_at, never stored.
    status text NOT NULL CHECK (status IN ('awaiting_address', 'address_confirmed', 'refunded')),
    requested_by_type text NOT NULL CHECK (requested_by_type IN ('api_key', 'user', 'operator')),
    requested_by_id text,
    destination_address text,
    confirmation text CHECK (confirmation IN ('signature', 'typed_twice')),
    confirmed_from text,
    address_confirmed_at timestamptz,
    refund_id uuid REFERENCES refunds (id),
    refunded_at timestamptz,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    CHECK ((status = 'awaiting_address') = (destination_address IS NULL)),
    CHECK ((status = 'refunded') = (refund_id IS NOT NULL))
);
CREATE INDEX refund_requests_scope ON refund_requests (merchant_id, livemode, id DESC);
CREATE INDEX refund_requests_payment ON refund_requests (payment_id);
