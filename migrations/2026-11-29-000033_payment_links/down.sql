DROP INDEX checkout_sessions_payment_link;
ALTER TABLE checkout_sessions
    DROP CONSTRAINT checkout_sessions_payment_link_fk,
    DROP CONSTRAINT checkout_sessions_requoted_from_fk,
    DROP COLUMN payment_link_id,
    DROP COLUMN requoted_from_id;
DROP TABLE payment_links;
