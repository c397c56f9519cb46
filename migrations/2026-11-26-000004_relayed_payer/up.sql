-- The payer and `validBefore` of each relayed one-signature payment. The operator signs a
-- payment bound to one payer (`PayerIntent`); while a dropped or reverted relay's
-- authorization can still be mined by anyone who saw it, another payer is refused, so a
-- session is never paid by two wallets. Null for rows relayed before this column existed.
ALTER TABLE relayed_transactions
    ADD COLUMN payer_address text,
    ADD COLUMN valid_before bigint;
