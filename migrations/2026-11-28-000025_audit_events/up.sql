-- The audit log (D32): changes that can move money or open access, each written in the
-- transaction of the change it records. Never edited, never deleted.
CREATE TABLE audit_events (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    -- NULL: the merchant's account as a whole (users, TOTP, settings), listed in both modes.
    livemode boolean,
    actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'user', 'operator')),
    actor_id text CHECK ((actor_type = 'operator') = (actor_id IS NULL)),
    action text NOT NULL,
    target text NOT NULL,
    client_address text,
    -- JSON text, as events keep their objects; the casts refuse anything else.
    before text CHECK (before IS NULL OR before::jsonb IS NOT NULL),
    after text CHECK (after IS NULL OR after::jsonb IS NOT NULL),
    created_at timestamptz NOT NULL
);
-- The list: one merchant's entries newest first (ids are UUIDv7).
CREATE INDEX audit_events_merchant ON audit_events (merchant_id, id DESC);

CREATE FUNCTION audit_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only (D32)';
END
$$;
CREATE TRIGGER audit_events_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
