-- The per-key rate limit shared by every api process (D15): a GCRA "theoretical
-- arrival time" per key. Processes lease tokens in batches sized to the key's rate, in
-- the same statement that authenticates the request.
ALTER TABLE api_keys ADD COLUMN rate_tat TIMESTAMPTZ;

-- Leases up to p_want tokens of a key's budget of p_per_min a minute (burst: one
-- minute's worth). Returns how many were granted and, when none, how long until one is.
CREATE FUNCTION stablepay_rate_lease(p_key UUID, p_per_min INTEGER, p_want INTEGER)
RETURNS TABLE (granted INTEGER, retry_after_ms BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    step DOUBLE PRECISION := 60.0 / GREATEST(p_per_min, 1);
    start TIMESTAMPTZ;
    room DOUBLE PRECISION;
    n INTEGER;
BEGIN
    SELECT GREATEST(COALESCE(rate_tat, clock_timestamp()), clock_timestamp()) INTO start
        FROM api_keys WHERE id = p_key FOR UPDATE;
    room := EXTRACT(EPOCH FROM (clock_timestamp() + interval '60 seconds' - start));
    n := LEAST(p_want, FLOOR(room / step)::INTEGER);
    IF n >= 1 THEN
        UPDATE api_keys SET rate_tat = start + make_interval(secs => n * step) WHERE id = p_key;
        RETURN QUERY SELECT n, 0::BIGINT;
    ELSE
        RETURN QUERY SELECT 0, CEIL((step - room) * 1000)::BIGINT;
    END IF;
END $$;

-- Retention (the worker deletes in small batches): challenges by age.
CREATE INDEX wallet_challenges_created ON wallet_challenges (created_at);
-- A resend outlives the delivery it copied.
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_resend_of_fkey,
    ADD CONSTRAINT webhook_events_resend_of_fkey FOREIGN KEY (resend_of)
        REFERENCES webhook_events (id) ON DELETE SET NULL;
