-- A session whose sweep entry failed (`SweepFailed`: a token that refuses the transfer, a
-- blocked recipient) is retried with a growing delay, oldest-tried last, so it can never
-- fill every batch and block the others.
ALTER TABLE deposit_transfers
    ADD COLUMN sweep_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN sweep_retry_at timestamptz;
