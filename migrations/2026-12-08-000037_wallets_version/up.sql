-- A count that moves whenever any of a merchant's wallets is written (D28): the key check
-- returns it with the merchant's terms, and an api process answers a create's
-- "verified wallets" from what it read before under the same count instead of reading them
-- again (crates/postgres/src/verified_wallets.rs holds the measurement). A trigger, not the
-- repository, moves it, so no write of a wallet (the api's, the dashboard's, an operator's
-- SQL) can leave a process serving a set that changed.
ALTER TABLE merchants ADD COLUMN wallets_version BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION stablepay_wallets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE merchants SET wallets_version = wallets_version + 1
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.merchant_id ELSE NEW.merchant_id END;
    IF TG_OP = 'UPDATE' AND OLD.merchant_id <> NEW.merchant_id THEN
        UPDATE merchants SET wallets_version = wallets_version + 1 WHERE id = OLD.merchant_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER wallets_changed AFTER INSERT OR UPDATE OR DELETE ON wallets
    FOR EACH ROW EXECUTE FUNCTION stablepay_wallets_changed();
