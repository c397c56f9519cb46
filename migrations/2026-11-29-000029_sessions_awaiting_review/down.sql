DROP TRIGGER payments_awaiting_review_update ON payments;
DROP TRIGGER payments_awaiting_review_insert ON payments;
DROP FUNCTION checkout_sessions_awaiting_review();
ALTER TABLE checkout_sessions DROP COLUMN awaiting_review;
