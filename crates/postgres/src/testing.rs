//! Test support: a fresh, migrated database per test, on the server `DATABASE_URL`
//! points at (`cargo xtask test` provides one).

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use crate::{run_migrations, PgStore, PoolConfig, SecretCipher};

/// A fresh store with one standard-tier merchant.
pub async fn store_with_merchant() -> (PgStore, stablepay_domain::MerchantId) {
    let (store, _) = fresh_store().await;
    let merchant = new_merchant(&store, "M").await;
    (store, merchant)
}

/// A new standard-tier merchant named `name` in `store`.
pub async fn new_merchant(store: &PgStore, name: &str) -> stablepay_domain::MerchantId {
    store
        .create_merchant(name, stablepay_domain::FeeTier::Standard)
        .await
        .expect("merchant")
        .id
}

/// What a standard-tier API key of `merchant` in `mode` authenticates as.
pub fn api_key_context(
    merchant: stablepay_domain::MerchantId,
    mode: stablepay_domain::Mode,
) -> stablepay_domain::AuthContext {
    stablepay_domain::AuthContext {
        merchant_id: merchant,
        mode,
        actor: stablepay_domain::Actor::ApiKey(stablepay_domain::ApiKeyId::generate()),
        fee_tier: stablepay_domain::FeeTier::Standard,
        rate_limit_per_min: None,
        underpayment_tolerance: stablepay_domain::UnderpaymentTolerance::NONE,
    }
}

/// A new API key of `merchant` in `mode`: its id, its hash, and the context it
/// authenticates as.
pub async fn key_of(
    store: &PgStore,
    merchant: stablepay_domain::MerchantId,
    mode: stablepay_domain::Mode,
) -> (
    stablepay_domain::ApiKeyId,
    [u8; 32],
    stablepay_domain::AuthContext,
) {
    use stablepay_domain::ports::ApiKeyStore;
    let key = store
        .create_api_key(merchant, mode, None)
        .await
        .expect("api key");
    let hash = stablepay_domain::rules::api_keys::hash(&key.secret);
    let context = store
        .authenticate(hash, None)
        .await
        .expect("authenticate")
        .expect("the key stands")
        .context;
    (key.id, hash, context)
}

/// Stores a wallet of `merchant` at `address` with `status`, verified by a test key.
pub async fn store_wallet(
    store: &PgStore,
    merchant: stablepay_domain::MerchantId,
    address: stablepay_domain::Address,
    status: stablepay_domain::WalletStatus,
) {
    let sql = format!(
        "INSERT INTO wallets (id, merchant_id, address, chain_id, status, verified_at, created_at, verified_mode) \
         VALUES (gen_random_uuid(), '{}', '{}', 84532, '{}', now(), now(), 'test')",
        merchant.uuid(),
        address.to_lower_hex(),
        status.as_str()
    );
    execute_sql(store, &sql).await.expect("wallet");
}

/// An idempotency scope of a test-mode create for `merchant`.
pub fn idempotency_scope(
    merchant: stablepay_domain::MerchantId,
    key: &str,
) -> stablepay_domain::ports::IdempotencyScope {
    stablepay_domain::ports::IdempotencyScope {
        merchant_id: merchant,
        mode: stablepay_domain::Mode::Test,
        route: "POST /api/v1/checkout/sessions".into(),
        key: key.into(),
    }
}

/// The admin URL from the environment.
pub fn admin_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| {
        panic!("DATABASE_URL is not set: run the tests through `cargo xtask test`, which starts PostgreSQL")
    })
}

/// Replaces the database name in a postgres URL.
pub fn with_database(url: &str, name: &str) -> String {
    let scheme_end = url.find("://").map(|i| i + 3).unwrap_or(0);
    let (base, query) = match url.find('?') {
        Some(q) => (&url[..q], &url[q..]),
        None => (url, ""),
    };
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}

/// Runs one raw statement (fixtures and benchmarks only).
pub async fn execute_sql(store: &PgStore, sql: &str) -> Result<usize, String> {
    let mut conn = store.conn().await.map_err(|e| e.to_string())?;
    diesel::sql_query(sql)
        .execute(&mut conn)
        .await
        .map_err(|e| e.to_string())
}

/// The `value` column (text) of every row `sql` returns.
pub async fn query_strings(store: &PgStore, sql: &str) -> Result<Vec<String>, String> {
    #[derive(diesel::QueryableByName)]
    struct Text {
        #[diesel(sql_type = diesel::sql_types::Text)]
        value: String,
    }
    let mut conn = store.conn().await.map_err(|e| e.to_string())?;
    let rows: Vec<Text> = diesel::sql_query(sql)
        .load(&mut conn)
        .await
        .map_err(|e| e.to_string())?;
    Ok(rows.into_iter().map(|r| r.value).collect())
}

/// The PostgreSQL backend that serves the store's next shared read (the connection
/// a unit bound to this store hands out, else a pooled one).
pub async fn backend_pid(store: &PgStore) -> i32 {
    #[derive(diesel::QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Int4)]
        pid: i32,
    }
    let conn = store.shared_conn().await.expect("conn");
    let row: Pid = diesel::sql_query("SELECT pg_backend_pid() AS pid")
        .get_result(&mut &*conn)
        .await
        .expect("pid");
    row.pid
}

/// A one-resource read unit (test mode, no claim) and the backend pid of its connection
/// (which the unit keeps while it lives).
pub async fn read_unit_backend_pid(
    store: &PgStore,
) -> (Box<dyn stablepay_request_store::ReadUnit>, i32) {
    let scope = stablepay_domain::AuthContext {
        merchant_id: stablepay_domain::MerchantId::generate(),
        mode: stablepay_domain::Mode::Test,
        actor: stablepay_domain::Actor::DashboardUser(stablepay_domain::DashboardUserId::generate()),
        fee_tier: stablepay_domain::FeeTier::Standard,
        rate_limit_per_min: None,
        underpayment_tolerance: stablepay_domain::UnderpaymentTolerance::NONE,
    };
    let unit = store
        .open_read_unit(scope, None, stablepay_request_store::ReadShape::One)
        .await
        .expect("unit");
    let pid = backend_pid(&unit.store).await;
    (Box::new(unit), pid)
}

/// An atomic write's unit and the backend pid of its connection.
pub async fn atomic_unit_backend_pid(
    store: &PgStore,
) -> (Box<dyn stablepay_request_store::AtomicUnit>, i32) {
    let unit = store.open_atomic_unit().await.expect("unit");
    let pid = backend_pid(&unit.store).await;
    (Box::new(unit), pid)
}

/// Creates `stablepay_test_<uuid>`, migrates it, and returns its URL.
pub async fn fresh_database() -> String {
    let admin = admin_url();
    let name = format!("stablepay_test_{}", uuid::Uuid::now_v7().simple());
    let mut conn = AsyncPgConnection::establish(&admin)
        .await
        .expect("connect to DATABASE_URL");
    diesel::sql_query(format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let url = with_database(&admin, &name);
    run_migrations(&url).await.expect("migrate test database");
    url
}

/// A store on a fresh database.
/// Reverts the newest migration of the database at `url` (to test what it does to rows
/// written before it); returns its version. `run_migrations` applies it again.
pub async fn revert_last_migration(url: &str) -> String {
    crate::migrate::revert_last(url).await.expect("revert")
}

pub async fn fresh_store() -> (PgStore, String) {
    let url = fresh_database().await;
    let store = PgStore::connect(
        &url,
        &PoolConfig::default(),
        SecretCipher::new(&[7u8; 32]).expect("key"),
    )
    .expect("pool");
    (store, url)
}

/// Fixture rows for read-path tests (nothing in the API creates them yet).
pub mod fixtures;

/// A stored, open 10 USDC payment session of `merchant` on Base Sepolia (9.9 net, 0.1
/// fee), created now and expiring in an hour; `deposit_address` as given.
pub async fn stored_session(
    store: &PgStore,
    merchant: stablepay_domain::MerchantId,
    deposit_address: Option<stablepay_domain::Address>,
) -> stablepay_domain::CheckoutSession {
    let session = new_session(merchant, deposit_address);
    stablepay_domain::ports::SessionRepository::insert(store, &session)
        .await
        .expect("session");
    session
}

/// The session `stored_session` stores, not stored.
pub fn new_session(
    merchant: stablepay_domain::MerchantId,
    deposit_address: Option<stablepay_domain::Address>,
) -> stablepay_domain::CheckoutSession {
    use stablepay_domain::*;
    let now = chrono::Utc::now();
    CheckoutSession {
        id: CheckoutSessionId::generate(),
        merchant_id: merchant,
        mode: Mode::Test,
        session_mode: SessionMode::Payment,
        status: SessionStatus::Open,
        title: "Beans".into(),
        description: None,
        amount: Amount::parse("10").expect("amount"),
        currency: Currency::Usdc,
        fee_bps: 100,
        fee_micros: 100_000,
        net_micros: 9_900_000,
        fee_tier: "standard".into(),
        chain: ChainId::BaseSepolia,
        token_address: Address::from_bytes([1; 20]),
        interval_seconds: None,
        chain_plan_id: None,
        recipient_address: Address::from_bytes([2; 20]),
        customer: None,
        subscription: None,
        customer_reference: None,
        success_url: None,
        cancel_url: None,
        wallet_address: None,
        tx_hash: None,
        metadata: "{}".into(),
        expires_at: Timestamp::new(now + chrono::Duration::seconds(3600)),
        completed_at: None,
        created_at: Timestamp::new(now),
        deposit_address,
        amount_received_micros: 0,
        underpayment_tolerance: stablepay_domain::UnderpaymentTolerance::NONE,
        underpaid_micros: None,
        awaiting_review: false,
        priced: None,
        payment_link: None,
        requoted_from: None,
    }
}

/// The sender's ledger and books as the store tests drive them: a replacement of the
/// attempt `replaces` at (`sender`, `nonce`), true when it was stored.
#[allow(clippy::too_many_arguments)]
pub async fn replace_attempt(
    store: &PgStore,
    kind: stablepay_domain::ports::WorkKind,
    chain: stablepay_domain::ChainId,
    sender: stablepay_domain::Address,
    nonce: u64,
    replaces: &stablepay_domain::TxHash,
    (hash, raw): (&stablepay_domain::TxHash, &[u8]),
    fees: stablepay_domain::ports::AttemptFees,
    fill: bool,
    now: stablepay_domain::Timestamp,
) -> Result<bool, stablepay_domain::ports::StoreError> {
    use stablepay_domain::ports::{NewestAttempt, ReplacementStored, SenderLedger, SignedTx};
    let replaced = NewestAttempt {
        sender,
        nonce,
        tx_hash: *replaces,
        raw: Vec::new(),
        fees,
        fill: false,
    };
    let signed = SignedTx {
        hash: *hash,
        raw: raw.to_vec(),
    };
    let stored = store
        .store_replacement(kind, chain, &replaced, &signed, fees, fill, now)
        .await?;
    Ok(stored == ReplacementStored::Stored)
}

/// A receipt of `gas_used` that cost `cost_wei` in all, mined or reverted.
pub fn gas_receipt(
    succeeded: bool,
    gas_used: u64,
    cost_wei: u128,
) -> stablepay_domain::ports::GasReceipt {
    stablepay_domain::ports::GasReceipt {
        block_number: 0,
        succeeded,
        gas_used,
        effective_gas_price_wei: cost_wei / u128::from(gas_used.max(1)),
    }
}

/// An operator's audit entry for a port call a test makes directly (use cases build the
/// real ones).
pub fn operator_audit(
    merchant: stablepay_domain::MerchantId,
    action: stablepay_domain::AuditAction,
    target: impl ToString,
) -> stablepay_domain::AuditEvent {
    stablepay_domain::AuditEvent::of(
        &stablepay_domain::Changer::OPERATOR,
        merchant,
        None,
        action,
        target,
        // Now, as a use case stamps it: the entry's id sorts by this time.
        stablepay_domain::Timestamp::new(chrono::Utc::now()),
    )
}
