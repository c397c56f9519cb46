-- Every delivery attempt is a row of its own (insert-only), written in the statement that
-- records the attempt's outcome on its delivery. Scoped like every merchant resource.
CREATE TABLE webhook_attempts (
    id UUID PRIMARY KEY,
    delivery_id UUID NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    merchant_id UUID NOT NULL,
    livemode BOOLEAN NOT NULL,
    attempted_at TIMESTAMPTZ NOT NULL,
    duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
    response_status INTEGER,
    error TEXT,
    response_body TEXT
);
CREATE INDEX webhook_attempts_by_delivery
    ON webhook_attempts (merchant_id, livemode, delivery_id, id DESC);
-- The cascade from retention's deletes finds a delivery's attempts through this.
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id);
