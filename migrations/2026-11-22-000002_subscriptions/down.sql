DROP TABLE keeper_transactions;
DROP TABLE keeper_nonces;
DROP INDEX payment_attempts_by_period;
DROP INDEX payments_one_per_period;
ALTER TABLE payments
    DROP CONSTRAINT payments_recurring_have_period,
    DROP CONSTRAINT payments_onchain_unless_failed_charge,
    DROP COLUMN period_key;
DELETE FROM payments WHERE tx_hash IS NULL;
ALTER TABLE payments
    ALTER COLUMN tx_hash SET NOT NULL,
    ALTER COLUMN log_index SET NOT NULL,
    ALTER COLUMN block_number SET NOT NULL;
DROP INDEX subscriptions_by_recipient;
DROP INDEX subscriptions_retry_due;
ALTER TABLE subscriptions
    DROP COLUMN billing_lease_until,
    DROP COLUMN version,
    DROP COLUMN metadata,
    DROP COLUMN customer_reference,
    DROP COLUMN checkout_session_id,
    DROP COLUMN token_address,
    DROP COLUMN recipient_address,
    DROP COLUMN manager_address;
DROP TABLE subscription_plans;
