-- EURC, a third token (D34): sessions, payments and refunds may be in it. The new checks
-- admit every row the old ones did (those were checked on every write), so they are added
-- NOT VALID: no full-table scan under the migration's exclusive lock; every new or
-- changed row is checked.
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_currency_check,
    ADD CONSTRAINT checkout_sessions_currency_check
        CHECK (currency IN ('USDC', 'USDT', 'EURC')) NOT VALID;
ALTER TABLE payments DROP CONSTRAINT payments_currency_check,
    ADD CONSTRAINT payments_currency_check
        CHECK (currency IN ('USDC', 'USDT', 'EURC')) NOT VALID;
ALTER TABLE refunds DROP CONSTRAINT refunds_currency_check,
    ADD CONSTRAINT refunds_currency_check
        CHECK (currency IN ('USDC', 'USDT', 'EURC')) NOT VALID;
