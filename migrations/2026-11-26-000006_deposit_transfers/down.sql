ALTER TABLE payments
    DROP CONSTRAINT payments_money_adds_up,
    DROP CONSTRAINT payments_refunds_within_received,
    ADD CHECK (fee_micros + merchant_micros = amount_micros),
    ADD CHECK (refunded_micros <= amount_micros);
ALTER TABLE payments DROP COLUMN overpaid_micros;
DROP INDEX checkout_sessions_deposit_watch;
DROP TABLE deposit_transfers;
