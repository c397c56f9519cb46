DROP INDEX payments_by_customer;
DROP INDEX customers_list;
DROP INDEX payments_by_created;
DROP INDEX webhook_events_by_endpoint;
ALTER TABLE api_keys DROP COLUMN last_used_at;
DROP TABLE dashboard_sessions;
DROP TABLE dashboard_users;
