DROP INDEX deposit_transfers_by_payment;
DROP INDEX deposit_transfers_by_block;
DROP INDEX balance_transactions_by_tx;
DROP INDEX balance_transactions_by_block;
DROP TABLE reconcile_runs;
