-- The EIP-3009 nonce a relay carries (D29): x402 payers choose their own, so one payer can
-- sign two authorizations for one session; a second is refused while the first can still
-- be mined. NULL on relays stored before (their nonce was the session ref).
ALTER TABLE relayed_transactions ADD COLUMN authorization_nonce bytea;
