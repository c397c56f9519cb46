-- Rotating the subscription manager (issue 29): subscriptions keep the manager they were
-- created on, and each manager numbers its subscriptions from 1, so an id is unique per
-- (chain, manager).
ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_chain_id_chain_subscription_id_key;
ALTER TABLE subscriptions
    ADD CONSTRAINT subscriptions_one_per_manager_id
    UNIQUE (chain_id, manager_address, chain_subscription_id);
-- The watcher reads every manager that still has live subscriptions, each tick.
CREATE INDEX subscriptions_live_managers ON subscriptions (chain_id, manager_address)
    WHERE status IN ('pending', 'active', 'past_due', 'paused');
