ALTER TABLE wallets DROP CONSTRAINT wallets_verified_has_mode;
ALTER TABLE wallets DROP COLUMN verified_mode;
