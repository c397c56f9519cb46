-- The per-key rate lease (D15) reads the time it is given, the api's `Clock` port, rather
-- than the database server's `clock_timestamp()`: one clock for every rule, and tests that
-- move time move this one too (issue 43 item 3).
CREATE FUNCTION stablepay_rate_lease(p_key UUID, p_per_min INTEGER, p_want INTEGER, p_now TIMESTAMPTZ)
RETURNS TABLE (granted INTEGER, retry_after_ms BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    step DOUBLE PRECISION := 60.0 / GREATEST(p_per_min, 1);
    start TIMESTAMPTZ;
    room DOUBLE PRECISION;
    n INTEGER;
BEGIN
    SELECT GREATEST(COALESCE(rate_tat, p_now), p_now) INTO start
        FROM api_keys WHERE id = p_key FOR UPDATE;
    room := EXTRACT(EPOCH FROM (p_now + interval '60 seconds' - start));
    n := LEAST(p_want, FLOOR(room / step)::INTEGER);
    IF n >= 1 THEN
        UPDATE api_keys SET rate_tat = start + make_interval(secs => n * step) WHERE id = p_key;
        RETURN QUERY SELECT n, 0::BIGINT;
    ELSE
        RETURN QUERY SELECT 0, CEIL((step - room) * 1000)::BIGINT;
    END IF;
END $$;
DROP FUNCTION stablepay_rate_lease(UUID, INTEGER, INTEGER);
