DROP INDEX deposit_transfers_unswept;
ALTER TABLE deposit_transfers DROP COLUMN sweep_tx_hash;
DROP TABLE deposit_sweeps;
