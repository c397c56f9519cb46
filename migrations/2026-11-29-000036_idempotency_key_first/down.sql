ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey,
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (merchant_id, livemode, route, key);
