-- The mode of the key (or dashboard) that revoked a wallet (D25, issue 42 item 2): one a
-- live key revoked is registered or verified again only by a live key. Revocations from
-- before are taken as live ones (the safe reading: a live key restores them).
ALTER TABLE wallets ADD COLUMN revoked_mode text;
UPDATE wallets SET revoked_mode = 'live' WHERE status = 'revoked';
