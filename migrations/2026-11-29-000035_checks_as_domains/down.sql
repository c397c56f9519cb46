ALTER TABLE idempotency_keys
    ALTER key TYPE text,
    ALTER state TYPE text,
    ADD CONSTRAINT idempotency_keys_key_check CHECK (length(key) BETWEEN 1 AND 200),
    ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('processing', 'completed'));

ALTER TABLE checkout_sessions
    DROP CONSTRAINT checkout_sessions_price_whole,
    ADD CONSTRAINT checkout_sessions_price_whole CHECK (
        (price_micros IS NULL) = (price_currency IS NULL)
        AND (price_micros IS NULL) = (quote_pair IS NULL)
        AND (price_micros IS NULL) = (quote_rate_e8 IS NULL)
        AND (price_micros IS NULL) = (quote_feed IS NULL)
        AND (price_micros IS NULL) = (quote_round_id IS NULL)
        AND (price_micros IS NULL) = (quote_updated_at IS NULL)
        AND (quote_expires_at IS NULL OR price_micros IS NOT NULL)),
    ALTER mode TYPE text,
    ALTER status TYPE text,
    ALTER amount_micros TYPE bigint,
    ALTER fee_bps TYPE integer,
    ALTER fee_micros TYPE bigint,
    ALTER net_micros TYPE bigint,
    ALTER chain_id TYPE integer,
    ALTER amount_received_micros TYPE bigint,
    ALTER underpayment_tolerance_bps TYPE integer,
    ALTER underpaid_micros TYPE bigint,
    ALTER currency TYPE text,
    ALTER price_currency TYPE text,
    ALTER quote_pair TYPE text,
    ADD CONSTRAINT checkout_sessions_mode_check CHECK (mode IN ('payment', 'subscription')),
    ADD CONSTRAINT checkout_sessions_status_check CHECK (status IN ('open', 'completed', 'expired')),
    ADD CONSTRAINT checkout_sessions_amount_micros_check CHECK (amount_micros > 0),
    ADD CONSTRAINT checkout_sessions_fee_bps_check CHECK (fee_bps BETWEEN 0 AND 1000),
    ADD CONSTRAINT checkout_sessions_fee_micros_check CHECK (fee_micros >= 0),
    ADD CONSTRAINT checkout_sessions_net_micros_check CHECK (net_micros >= 0),
    ADD CONSTRAINT checkout_sessions_chain_id_check CHECK (chain_id IN (8453, 84532)),
    ADD CONSTRAINT checkout_sessions_amount_received_micros_check CHECK (amount_received_micros >= 0),
    ADD CONSTRAINT checkout_sessions_underpayment_tolerance_bps_check
        CHECK (underpayment_tolerance_bps BETWEEN 0 AND 1000),
    ADD CONSTRAINT checkout_sessions_underpaid_micros_check CHECK (underpaid_micros > 0),
    ADD CONSTRAINT checkout_sessions_currency_check CHECK (currency IN ('USDC', 'USDT', 'EURC')),
    ADD CONSTRAINT checkout_sessions_price_currency_check CHECK (price_currency IN ('USD', 'EUR')),
    ADD CONSTRAINT checkout_sessions_quote_pair_check
        CHECK (quote_pair IN ('EUR/USD', 'USDC/USD', 'USDT/USD', 'EURC/USD'));

DROP DOMAIN checkout_mode, checkout_status, micros, positive_micros, basis_points, base_chain_id,
    token_symbol, price_currency, quote_pair, idempotency_key, idempotency_state;
