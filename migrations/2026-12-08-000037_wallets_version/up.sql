-- A value drawn anew whenever any of a merchant's wallets is written (D28): the key check
-- returns it with the merchant's terms, and an api process answers a create's "verified
-- wallets" from what it read before under the same value instead of reading them again
-- (crates/postgres/src/verified_wallets.rs holds the measurement). Random, not a counter, so
-- a restore or a failover that loses writes can never bring back a value a process already
-- holds. Triggers, not the repository, draw it, so no write of a wallet by the api, the
-- dashboard or an operator's SQL can leave a process serving a set that changed; only a
-- session that turns triggers off (session_replication_role = replica, pg_restore
-- --disable-triggers) can, and operations.md says to restart the api after one.
ALTER TABLE merchants ADD COLUMN wallets_version UUID NOT NULL DEFAULT gen_random_uuid();

CREATE FUNCTION stablepay_wallets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE merchants SET wallets_version = gen_random_uuid();
        RETURN NULL;
    END IF;
    UPDATE merchants SET wallets_version = gen_random_uuid()
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.merchant_id ELSE NEW.merchant_id END;
    IF TG_OP = 'UPDATE' AND OLD.merchant_id <> NEW.merchant_id THEN
        UPDATE merchants SET wallets_version = gen_random_uuid() WHERE id = OLD.merchant_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER wallets_changed AFTER INSERT OR UPDATE OR DELETE ON wallets
    FOR EACH ROW EXECUTE FUNCTION stablepay_wallets_changed();
CREATE TRIGGER wallets_truncated AFTER TRUNCATE ON wallets
    FOR EACH STATEMENT EXECUTE FUNCTION stablepay_wallets_changed();
