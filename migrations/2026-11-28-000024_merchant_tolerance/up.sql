-- The merchant's default underpayment tolerance (D32): what a payment-mode session
-- takes when its create request names none.
ALTER TABLE merchants
    ADD COLUMN underpayment_tolerance_bps integer NOT NULL DEFAULT 0
        CHECK (underpayment_tolerance_bps BETWEEN 0 AND 1000);
