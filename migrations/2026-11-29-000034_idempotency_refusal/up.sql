-- An atomic write's answer is recorded by a statement that fails when it did not store
-- (a duplicate holds the key, or committed its answer first), so the COMMIT sent right
-- behind it finds the transaction aborted and rolls it back: one round trip, not two.
-- The reason is the message's last word (`in_flight` or `superseded`).
CREATE FUNCTION idempotency_answer_refused(reason text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'idempotency answer not recorded: %', reason;
END
$$;
