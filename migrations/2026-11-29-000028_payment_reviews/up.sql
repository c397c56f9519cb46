-- Payments held for the merchant's review (D33): a payer a sanctions source listed after
-- the money had moved. NULL: never held.
ALTER TABLE payments
    ADD COLUMN review_status text CHECK (review_status IN ('pending', 'approved', 'returned')),
    ADD COLUMN review_reason text,
    ADD COLUMN review_source text,
    ADD COLUMN reviewed_at timestamptz,
    ADD CHECK ((review_status IS NULL) = (review_reason IS NULL AND review_source IS NULL));
-- The review queue: few rows, read often.
CREATE INDEX payments_review_pending ON payments (merchant_id, livemode, id DESC)
    WHERE review_status = 'pending';
