-- Underpayment tolerance (D32): a deposit short of the gross by at most the session's
-- tolerance completes it; the shortfall is kept on the session and the payment.
ALTER TABLE checkout_sessions
    ADD COLUMN underpayment_tolerance_bps integer NOT NULL DEFAULT 0
        CHECK (underpayment_tolerance_bps BETWEEN 0 AND 1000),
    ADD COLUMN underpaid_micros bigint CHECK (underpaid_micros > 0);
ALTER TABLE payments
    ADD COLUMN underpaid_micros bigint NOT NULL DEFAULT 0 CHECK (underpaid_micros >= 0);
