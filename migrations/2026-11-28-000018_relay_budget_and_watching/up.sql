-- Issue 42. Item 1 (D30): the relayer's gas over the last hour, per chain, for the budget
-- of gas lost to reverts. Item 7: the watcher no longer reads every watched deposit
-- address by expiry; it looks up the recipients a block range's transfers named, by
-- `checkout_sessions_deposit_address` (chain_id, deposit_address).
CREATE INDEX relayed_transactions_mined ON relayed_transactions (chain_id, mined_at)
    WHERE mined_at IS NOT NULL;
DROP INDEX checkout_sessions_deposit_watch;
