-- The delivery queue moves out of webhook_events into a narrow table of work still to do
-- (issue 11): a row per pending delivery, deleted once the delivery succeeds or fails for
-- good. webhook_events keeps the record (one UPDATE per attempt, no lease writes), and
-- claims read only this small table, which the worker vacuums itself, so they never walk
-- dead entries even while autovacuum lags.
-- No delivery may commit between the backfill below and the trigger taking over.
LOCK TABLE webhook_events IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE webhook_queue (
    delivery_id  UUID PRIMARY KEY REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id  UUID NOT NULL,
    due_at       TIMESTAMPTZ NOT NULL,
    lease_until  TIMESTAMPTZ
);
-- Fair claims walk each endpoint's due work separately (a per-endpoint cap).
CREATE INDEX webhook_queue_by_endpoint ON webhook_queue (endpoint_id, due_at);

INSERT INTO webhook_queue (delivery_id, endpoint_id, due_at, lease_until)
SELECT id, endpoint_id, COALESCE(next_attempt_at, now()), lease_until
FROM webhook_events WHERE status = 'pending';

DROP INDEX webhook_events_due;
ALTER TABLE webhook_events DROP COLUMN lease_until;

-- Every pending delivery written (outbox, test events, resends, fixtures) is queued and
-- announced in the statement that writes it; the NOTIFY carries the new ids (up to 200,
-- beyond that an empty payload tells the workers to scan), so a worker claims fresh work
-- by primary key instead of searching for it.
CREATE FUNCTION webhook_events_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids TEXT;
    n INTEGER;
BEGIN
    INSERT INTO webhook_queue (delivery_id, endpoint_id, due_at)
    -- Never later than the database's now: a writer whose clock runs ahead must not
    -- make a fresh delivery look not yet due to the worker that claims it by key.
    SELECT id, endpoint_id, LEAST(COALESCE(next_attempt_at, created_at), now())
    FROM new_rows WHERE status = 'pending';
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN
        RETURN NULL;
    END IF;
    IF n <= 200 THEN
        SELECT string_agg(id::text, ',') INTO ids FROM new_rows WHERE status = 'pending';
    ELSE
        ids := '';
    END IF;
    PERFORM pg_notify('stablepay_webhook_events', ids);
    RETURN NULL;
END $$;

CREATE TRIGGER webhook_events_enqueue AFTER INSERT ON webhook_events
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_enqueue();

-- Endpoint health (issue 11): when every attempt has failed since `failing_since` for the
-- configured period, the worker disables the endpoint and says why on its record.
ALTER TABLE webhook_endpoints
    ADD COLUMN failing_since TIMESTAMPTZ,
    ADD COLUMN last_failed_at TIMESTAMPTZ,
    ADD COLUMN disabled_reason TEXT;
