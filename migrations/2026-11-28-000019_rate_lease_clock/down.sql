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
DROP FUNCTION stablepay_rate_lease(UUID, INTEGER, INTEGER, TIMESTAMPTZ);
