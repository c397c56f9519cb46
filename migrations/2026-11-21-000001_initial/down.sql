DROP TABLE chain_cursors, idempotency_keys, webhook_events, events, webhook_endpoints, payment_attempts,
    refunds, payments, checkout_sessions, subscriptions, customers, wallet_challenges, wallets, api_keys, merchants;
