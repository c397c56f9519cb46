ALTER TABLE deposit_transfers DROP COLUMN sweep_attempts, DROP COLUMN sweep_retry_at;
