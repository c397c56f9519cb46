-- D25: which mode verified each wallet. A test key may not revoke a wallet verified in
-- live mode, and a live session's default recipient is only ever one of those. Wallets
-- verified before this column existed were verified by keys of either mode; they count as
-- live-verified so that no test key can take them out of service.
ALTER TABLE wallets ADD COLUMN verified_mode text
    CHECK (verified_mode IN ('test', 'live'));
UPDATE wallets SET verified_mode = 'live' WHERE status = 'verified' OR verified_at IS NOT NULL;
ALTER TABLE wallets ADD CONSTRAINT wallets_verified_has_mode
    CHECK (status <> 'verified' OR verified_mode IS NOT NULL);
