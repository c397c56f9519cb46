-- D32: the ledger. Every movement of money is one row, appended in the transaction that
-- books it; rows are never updated or deleted (a reorg adds a reversal).
CREATE TABLE balance_transactions (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    livemode boolean NOT NULL,
    type text NOT NULL CHECK (type IN ('payment', 'overpayment', 'late_payment',
                                       'subscription_charge', 'refund', 'reversal')),
    payment_id uuid NOT NULL REFERENCES payments (id),
    -- Set for a refund's entry only: its source is the refund.
    refund_id uuid REFERENCES refunds (id),
    amount_micros bigint NOT NULL,
    fee_micros bigint NOT NULL,
    net_micros bigint NOT NULL,
    currency text NOT NULL,
    chain_id integer NOT NULL,
    token_address text NOT NULL,
    tx_hash text NOT NULL,
    log_index bigint NOT NULL,
    -- NULL only in entries this migration wrote for money booked before the ledger
    -- (refunds kept no block number, and nothing kept block times).
    block_number bigint,
    block_time timestamptz,
    created_at timestamptz NOT NULL,
    CHECK (amount_micros = fee_micros + net_micros),
    CHECK ((type = 'refund') = (refund_id IS NOT NULL))
);

CREATE INDEX balance_transactions_page ON balance_transactions (merchant_id, livemode, id DESC);
CREATE INDEX balance_transactions_type_page
    ON balance_transactions (merchant_id, livemode, type, id DESC);
CREATE INDEX balance_transactions_payment ON balance_transactions (payment_id, id DESC);
CREATE INDEX balance_transactions_refund ON balance_transactions (refund_id)
    WHERE refund_id IS NOT NULL;
CREATE INDEX balance_transactions_block_time
    ON balance_transactions (merchant_id, livemode, block_time, id);

-- Append-only, whoever connects: an UPDATE or DELETE is an error, not a convention.
CREATE FUNCTION balance_transactions_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'balance_transactions is append-only (D32)';
END
$$;
CREATE TRIGGER balance_transactions_append_only
    BEFORE UPDATE OR DELETE ON balance_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION balance_transactions_append_only();

-- A UUIDv7 for time `t`, so backfilled entries page in the order they were booked.
CREATE FUNCTION pg_temp.uuid7_at(t timestamptz) RETURNS uuid
LANGUAGE sql VOLATILE AS $$
    SELECT encode(
        set_bit(set_bit(
            overlay(uuid_send(gen_random_uuid())
                    PLACING substring(int8send(floor(extract(epoch FROM t) * 1000)::bigint) FROM 3)
                    FROM 1 FOR 6),
            52, 1), 53, 1),
        'hex')::uuid
$$;

-- Backfill: every confirmed (or refunded) payment and every refund booked so far.
-- A one-time payment is late when its session was completed by another transaction, or
-- it was booked after the session expired, in the session's own token.
INSERT INTO balance_transactions (id, merchant_id, livemode, type, payment_id,
    amount_micros, fee_micros, net_micros, currency, chain_id, token_address, tx_hash,
    log_index, block_number, block_time, created_at)
SELECT pg_temp.uuid7_at(p.created_at), p.merchant_id, p.livemode,
       CASE
           WHEN p.charge_type = 'recurring' THEN 'subscription_charge'
           WHEN s.id IS NOT NULL AND p.token_address = s.token_address
                AND s.tx_hash IS DISTINCT FROM p.tx_hash
                AND (s.status = 'completed' OR p.created_at >= s.expires_at)
               THEN 'late_payment'
           ELSE 'payment'
       END,
       p.id, p.amount_micros, LEAST(p.fee_micros, p.amount_micros),
       p.amount_micros - LEAST(p.fee_micros, p.amount_micros),
       p.currency, p.chain_id, p.token_address, p.tx_hash, p.log_index, p.block_number,
       NULL, p.created_at
FROM payments p
LEFT JOIN checkout_sessions s ON s.id = p.checkout_session_id
WHERE p.status IN ('confirmed', 'refunded') AND p.tx_hash IS NOT NULL
  AND p.log_index IS NOT NULL;

INSERT INTO balance_transactions (id, merchant_id, livemode, type, payment_id,
    amount_micros, fee_micros, net_micros, currency, chain_id, token_address, tx_hash,
    log_index, block_number, block_time, created_at)
SELECT pg_temp.uuid7_at(p.created_at), p.merchant_id, p.livemode, 'overpayment', p.id,
       p.overpaid_micros, 0, p.overpaid_micros, p.currency, p.chain_id, p.token_address,
       p.tx_hash, p.log_index, p.block_number, NULL, p.created_at
FROM payments p
WHERE p.status IN ('confirmed', 'refunded') AND p.tx_hash IS NOT NULL
  AND p.log_index IS NOT NULL AND p.overpaid_micros > 0;

INSERT INTO balance_transactions (id, merchant_id, livemode, type, payment_id, refund_id,
    amount_micros, fee_micros, net_micros, currency, chain_id, token_address, tx_hash,
    log_index, block_number, block_time, created_at)
SELECT pg_temp.uuid7_at(r.created_at), r.merchant_id, r.livemode, 'refund', r.payment_id,
       r.id, -r.amount_micros, 0, -r.amount_micros, r.currency, r.chain_id, r.token_address,
       r.tx_hash, r.log_index, NULL, NULL, r.created_at
FROM refunds r;
