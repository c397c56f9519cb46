ALTER TABLE checkout_sessions
    DROP CONSTRAINT checkout_sessions_price_whole,
    DROP COLUMN price_micros, DROP COLUMN price_currency, DROP COLUMN quote_pair,
    DROP COLUMN quote_rate_e8, DROP COLUMN quote_feed, DROP COLUMN quote_round_id,
    DROP COLUMN quote_updated_at, DROP COLUMN quote_expires_at;
