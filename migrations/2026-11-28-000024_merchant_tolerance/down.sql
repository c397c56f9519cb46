ALTER TABLE merchants DROP COLUMN underpayment_tolerance_bps;
