ALTER TABLE relayed_transactions DROP COLUMN authorization_terms;
