ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_currency_check,
    ADD CONSTRAINT checkout_sessions_currency_check CHECK (currency IN ('USDC', 'USDT'));
ALTER TABLE payments DROP CONSTRAINT payments_currency_check,
    ADD CONSTRAINT payments_currency_check CHECK (currency IN ('USDC', 'USDT'));
ALTER TABLE refunds DROP CONSTRAINT refunds_currency_check,
    ADD CONSTRAINT refunds_currency_check CHECK (currency IN ('USDC', 'USDT'));
