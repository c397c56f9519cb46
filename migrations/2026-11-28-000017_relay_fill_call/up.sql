-- The fill of a one-signature relay's nonce (D30, issue 42 item 4): the router's
-- operator-signed cancel of the session's ref, so that once the relay is unwanted its
-- calldata can never be replayed. NULL for x402 relays (the relayer cannot cancel a direct
-- transferWithAuthorization) and relays stored before: those are filled by a 0-value
-- self-transfer.
ALTER TABLE relayed_transactions ADD COLUMN fill_to text;
ALTER TABLE relayed_transactions ADD COLUMN fill_data bytea;
