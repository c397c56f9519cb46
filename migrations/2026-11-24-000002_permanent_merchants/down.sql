ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_merchant_id_fkey
    FOREIGN KEY (merchant_id) REFERENCES merchants (id);
ALTER TABLE events ADD CONSTRAINT events_merchant_id_fkey
    FOREIGN KEY (merchant_id) REFERENCES merchants (id);
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_merchant_id_fkey
    FOREIGN KEY (merchant_id) REFERENCES merchants (id);
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_merchant_id_fkey
    FOREIGN KEY (merchant_id) REFERENCES merchants (id);
DROP TRIGGER merchants_not_truncated ON merchants;
DROP TRIGGER merchants_permanent ON merchants;
DROP FUNCTION stablepay_merchants_are_permanent();
