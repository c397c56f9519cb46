DROP TABLE balance_transactions;
DROP FUNCTION balance_transactions_append_only();
