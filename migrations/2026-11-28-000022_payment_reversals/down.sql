DROP INDEX payments_booked_by_block;
ALTER TABLE payments DROP COLUMN reversed;
