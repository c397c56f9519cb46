DROP TABLE relayed_transactions;
