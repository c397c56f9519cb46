-- Screening payers (D33). Lists the operator imports, versioned per name: each import is a
-- new version and lookups read the newest; older versions stay as the proof of what a
-- check read. Every check any source answered is kept.
CREATE TABLE screening_lists (
    id bigserial PRIMARY KEY,
    name text NOT NULL,
    version integer NOT NULL,
    format text NOT NULL CHECK (format IN ('ofac_sdn_xml', 'plain')),
    -- The list's own publication date, where its format carries one (OFAC's Publish_Date).
    published text,
    entries integer NOT NULL,
    imported_at timestamptz NOT NULL,
    UNIQUE (name, version)
);

CREATE TABLE screening_entries (
    list_id bigint NOT NULL REFERENCES screening_lists (id),
    -- 20 bytes: an EVM address, the same on every EVM chain.
    address bytea NOT NULL CHECK (length(address) = 20),
    -- The list's own reference for the entry (OFAC: the SDN entry's uid and name).
    entry text,
    PRIMARY KEY (address, list_id)
);

CREATE TABLE screening_checks (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL,
    livemode boolean NOT NULL,
    chain_id integer NOT NULL,
    address text NOT NULL,
    -- What the payer was screened for: a session's payment or a subscription's charge.
    session_id uuid,
    subscription_id uuid,
    CHECK ((session_id IS NULL) <> (subscription_id IS NULL)),
    path text NOT NULL,
    source text NOT NULL,
    list_version integer,
    answer text NOT NULL CHECK (answer IN ('clear', 'listed', 'unknown')),
    list text,
    entry text,
    checked_at timestamptz NOT NULL
);
CREATE INDEX screening_checks_session ON screening_checks (session_id, id) WHERE session_id IS NOT NULL;
CREATE INDEX screening_checks_subscription ON screening_checks (subscription_id, id)
    WHERE subscription_id IS NOT NULL;
CREATE INDEX screening_checks_scope ON screening_checks (merchant_id, livemode, id DESC);
