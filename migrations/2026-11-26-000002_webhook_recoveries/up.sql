-- The rest of an endpoint recovery, continued by the worker in batches: a recover request
-- walks one batch of failed deliveries itself and leaves the older ones here.
CREATE TABLE webhook_recoveries (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    livemode boolean NOT NULL,
    endpoint_id uuid NOT NULL,
    since timestamptz NOT NULL,
    -- The last failed delivery walked (newest first): the next batch starts after it.
    resume_after uuid NOT NULL,
    enqueued integer NOT NULL DEFAULT 0,
    still_pending integer NOT NULL DEFAULT 0,
    leased_until timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    finished_at timestamptz
);
CREATE INDEX webhook_recoveries_unfinished ON webhook_recoveries (created_at)
    WHERE finished_at IS NULL;
