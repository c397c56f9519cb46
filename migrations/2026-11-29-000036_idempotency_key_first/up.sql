-- The key leads the primary key of idempotency_keys (D14). A write's key check and its look
-- at the key are one statement (the key's row joined to idempotency_keys under the key's
-- own merchant and mode), and PostgreSQL may plan that join with an inner scan that is not
-- given the merchant and mode: with them leading the index, such a scan read every entry
-- of the route (on a fresh database `cargo xtask bench api` counted 23 million tuples read
-- over 50,000 creates, and a look took up to 366 ms). With the key leading, any scan the
-- planner picks finds the key's own entries. Rebuilding the index locks the table for about
-- 1 s per million keys.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey,
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key, route, merchant_id, livemode);
