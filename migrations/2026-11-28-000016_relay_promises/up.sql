-- The relayer is not a free gas tank (D30, issue 42 item 1): what each relay promises of
-- its payer's balance (token, value), and the code hash of a contract payer, so that a
-- payer (or a contract with its code) whose relay reverted is refused for a cool-down.
-- NULL on relays stored before: they promise nothing and cool nobody down.
ALTER TABLE relayed_transactions ADD COLUMN token_address text;
ALTER TABLE relayed_transactions ADD COLUMN relay_value numeric(78, 0);
ALTER TABLE relayed_transactions ADD COLUMN payer_code_hash bytea;
CREATE INDEX relayed_transactions_payer ON relayed_transactions (chain_id, payer_address, status);
CREATE INDEX relayed_transactions_reverted_code ON relayed_transactions (chain_id, payer_code_hash)
    WHERE status = 'reverted' AND payer_code_hash IS NOT NULL;
