DROP INDEX payments_review_pending;
ALTER TABLE payments DROP COLUMN review_status, DROP COLUMN review_reason,
    DROP COLUMN review_source, DROP COLUMN reviewed_at;
