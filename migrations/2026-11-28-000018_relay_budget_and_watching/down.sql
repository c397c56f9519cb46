CREATE INDEX checkout_sessions_deposit_watch ON checkout_sessions (chain_id, expires_at)
    WHERE deposit_address IS NOT NULL;
DROP INDEX relayed_transactions_mined;
