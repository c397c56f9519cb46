-- D33: a session whose paid payment waits for the merchant's review stays open past its
-- expires_at (the lazy expiry skips it) until the review is decided. Kept by a trigger on
-- payments, so that every path that books, reverses or decides a held payment (router,
-- deposit, reorg, review) keeps it true without knowing of it.
ALTER TABLE checkout_sessions ADD COLUMN awaiting_review boolean NOT NULL DEFAULT false;

CREATE FUNCTION checkout_sessions_awaiting_review() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.checkout_session_id IS NOT NULL THEN
        UPDATE checkout_sessions s
        SET awaiting_review = EXISTS (
            SELECT 1 FROM payments p
            WHERE p.checkout_session_id = NEW.checkout_session_id
              AND p.review_status = 'pending'
              AND p.status IN ('confirmed', 'refunded'))
        WHERE s.id = NEW.checkout_session_id;
    END IF;
    RETURN NULL;
END
$$;
-- Only payments that are or were held: every other payment write pays nothing for this.
CREATE TRIGGER payments_awaiting_review_insert
    AFTER INSERT ON payments FOR EACH ROW
    WHEN (NEW.review_status IS NOT NULL)
    EXECUTE FUNCTION checkout_sessions_awaiting_review();
CREATE TRIGGER payments_awaiting_review_update
    AFTER UPDATE OF status, review_status ON payments FOR EACH ROW
    WHEN (NEW.review_status IS NOT NULL OR OLD.review_status IS NOT NULL)
    EXECUTE FUNCTION checkout_sessions_awaiting_review();
