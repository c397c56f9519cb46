-- Every signed term and the signature of an x402 relay, as one digest (issue 42, item 5):
-- a later payload is "the same payment" only when all of them are equal, never by from +
-- nonce alone. NULL for one-signature relays and relays stored before.
ALTER TABLE relayed_transactions ADD COLUMN authorization_terms bytea;
