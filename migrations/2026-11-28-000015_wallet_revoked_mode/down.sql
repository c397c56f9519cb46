ALTER TABLE wallets DROP COLUMN revoked_mode;
