ALTER TABLE merchants DROP COLUMN screening_test, DROP COLUMN screening_live;
