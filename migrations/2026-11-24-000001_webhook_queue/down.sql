ALTER TABLE webhook_endpoints DROP COLUMN disabled_reason, DROP COLUMN last_failed_at, DROP COLUMN failing_since;
DROP TRIGGER webhook_events_enqueue ON webhook_events;
DROP FUNCTION webhook_events_enqueue();
ALTER TABLE webhook_events ADD COLUMN lease_until TIMESTAMPTZ;
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE status = 'pending';
DROP TABLE webhook_queue;
