-- Prices in a currency (D34): a session priced in USD or EUR keeps its price and the
-- quote its token amount was converted at; all of it or none. Every existing row has none
-- of the new columns, so the check is added NOT VALID (no scan under the lock).
ALTER TABLE checkout_sessions
    ADD COLUMN price_micros int8,
    ADD COLUMN price_currency text CHECK (price_currency IN ('USD', 'EUR')),
    ADD COLUMN quote_pair text CHECK (quote_pair IN ('EUR/USD', 'USDC/USD', 'USDT/USD', 'EURC/USD')),
    ADD COLUMN quote_rate_e8 int8,
    ADD COLUMN quote_feed text,
    -- A feed's round id is a uint80: kept as its decimal string.
    ADD COLUMN quote_round_id text,
    ADD COLUMN quote_updated_at timestamptz,
    ADD COLUMN quote_expires_at timestamptz,
    ADD CONSTRAINT checkout_sessions_price_whole CHECK (
        (price_micros IS NULL) = (price_currency IS NULL)
        AND (price_micros IS NULL) = (quote_pair IS NULL)
        AND (price_micros IS NULL) = (quote_rate_e8 IS NULL)
        AND (price_micros IS NULL) = (quote_feed IS NULL)
        AND (price_micros IS NULL) = (quote_round_id IS NULL)
        AND (price_micros IS NULL) = (quote_updated_at IS NULL)
        AND (quote_expires_at IS NULL OR price_micros IS NOT NULL)) NOT VALID;
