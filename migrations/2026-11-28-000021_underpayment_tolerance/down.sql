ALTER TABLE payments DROP COLUMN underpaid_micros;
ALTER TABLE checkout_sessions DROP COLUMN underpayment_tolerance_bps, DROP COLUMN underpaid_micros;
