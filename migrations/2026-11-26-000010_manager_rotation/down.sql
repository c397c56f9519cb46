DROP INDEX subscriptions_by_manager;
ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_one_per_manager_id;
ALTER TABLE subscriptions
    ADD CONSTRAINT subscriptions_chain_id_chain_subscription_id_key
    UNIQUE (chain_id, chain_subscription_id);
