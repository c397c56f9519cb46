-- Attempts at the nonces of relayed payments and sweeps (the keeper's stay).
DELETE FROM sender_attempts sa
WHERE EXISTS (SELECT 1 FROM relayed_transactions rt
              WHERE rt.chain_id = sa.chain_id AND rt.sender_address = sa.sender_address
                AND rt.nonce = sa.nonce)
   OR EXISTS (SELECT 1 FROM deposit_sweeps ds
              WHERE ds.chain_id = sa.chain_id AND ds.sender_address = sa.sender_address
                AND ds.nonce = sa.nonce);
-- After a replacement the work's row names the newest attempt only: a release before this
-- one follows that hash alone, so go back only with no relay or sweep in flight.
