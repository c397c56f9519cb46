DROP INDEX checkout_sessions_deposit_address;
ALTER TABLE checkout_sessions DROP COLUMN deposit_address, DROP COLUMN amount_received_micros;
