-- Reconcile runs (D32): the worker's scheduled comparison of the ledger with the chain;
-- the doctor prints the latest per chain. Ledger entries are found by chain and block.
CREATE TABLE reconcile_runs (
    id          bigserial PRIMARY KEY,
    chain_id    integer NOT NULL,
    from_block  bigint NOT NULL,
    to_block    bigint NOT NULL,
    differences integer NOT NULL CHECK (differences >= 0),
    ran_at      timestamptz NOT NULL
);
CREATE INDEX reconcile_runs_latest ON reconcile_runs (chain_id, id DESC);
CREATE INDEX balance_transactions_by_block ON balance_transactions (chain_id, block_number);
CREATE INDEX balance_transactions_by_tx ON balance_transactions (tx_hash);
CREATE INDEX deposit_transfers_by_block ON deposit_transfers (chain_id, block_number);
CREATE INDEX deposit_transfers_by_payment ON deposit_transfers (payment_id) WHERE payment_id IS NOT NULL;
