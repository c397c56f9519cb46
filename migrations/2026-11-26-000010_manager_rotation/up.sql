-- Rotating the subscription manager (issue 29): subscriptions keep the manager they were
-- created on, and each manager numbers its subscriptions from 1, so an id is unique per
-- (chain, manager).
ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_chain_id_chain_subscription_id_key;
ALTER TABLE subscriptions
    ADD CONSTRAINT subscriptions_one_per_manager_id
    UNIQUE (chain_id, manager_address, chain_subscription_id);
-- The watcher reads every manager that holds a recorded subscription, each tick (a charge
-- mined after the last one was canceled is still booked).
CREATE INDEX subscriptions_by_manager ON subscriptions (chain_id, manager_address);
