DROP TRIGGER wallets_truncated ON wallets;
DROP TRIGGER wallets_changed ON wallets;
DROP FUNCTION stablepay_wallets_changed();
ALTER TABLE merchants DROP COLUMN wallets_version;
