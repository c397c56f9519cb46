ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_resend_of_fkey,
    ADD CONSTRAINT webhook_events_resend_of_fkey FOREIGN KEY (resend_of) REFERENCES webhook_events (id);
DROP INDEX wallet_challenges_created;
DROP FUNCTION stablepay_rate_lease(UUID, INTEGER, INTEGER);
ALTER TABLE api_keys DROP COLUMN rate_tat;
