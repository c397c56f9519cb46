//! Test support: a fresh, migrated database per test, on the server `DATABASE_URL`
//! points at (`cargo xtask test` provides one).

use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use crate::{run_migrations, PgStore, PoolConfig, SecretCipher};

/// A fresh store with one standard-tier merchant.
pub async fn store_with_merchant() -> (PgStore, stablepay_domain::MerchantId) {
    let (store, _) = fresh_store().await;
    let merchant = store
        .create_merchant("M", stablepay_domain::FeeTier::Standard)
        .await
        .expect("merchant")
        .id;
    (store, merchant)
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
    }
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

/// The PostgreSQL backend that serves the current task's next shared read (which
/// connection a request scope hands out).
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

/// A unit of work opened for `access`, and the backend pid of its connection (which the
/// unit keeps while it lives).
pub async fn unit_backend_pid(
    store: &PgStore,
    access: stablepay_domain::ports::Access,
) -> (Box<dyn stablepay_domain::ports::UnitOfWork>, i32) {
    let unit = store.open_unit(access, None).await.expect("unit");
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
pub mod fixtures {
    use diesel::ExpressionMethods;
    use diesel_async::RunQueryDsl;
    use stablepay_domain::{CheckoutSessionId, MerchantId, PaymentId, RefundId, SubscriptionId};
    use uuid::Uuid;

    use crate::rows::{PaymentAttemptRow, PaymentRow, RefundRow, SubscriptionRow};
    use crate::schema::{customers, payment_attempts, payments, refunds, subscriptions};
    use crate::PgStore;

    fn addr(byte: u8) -> String {
        format!("0x{}", hex_byte(byte).repeat(20))
    }

    fn hex_byte(b: u8) -> String {
        format!("{b:02x}")
    }

    async fn customer(store: &PgStore, merchant: MerchantId, livemode: bool) -> Uuid {
        use diesel::ExpressionMethods;
        let id = Uuid::now_v7();
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(customers::table)
            .values((
                customers::id.eq(id),
                customers::merchant_id.eq(merchant.uuid()),
                customers::livemode.eq(livemode),
                customers::address.eq(format!("0x{:040x}", id.as_u128() & ((1u128 << 127) - 1))),
                customers::created_at.eq(chrono::Utc::now()),
            ))
            .execute(&mut conn)
            .await
            .expect("insert customer");
        id
    }

    /// A confirmed 10 USDC payment (1% fee) with a unique tx hash.
    pub async fn payment(
        store: &PgStore,
        merchant: MerchantId,
        livemode: bool,
        status: &str,
        session: Option<CheckoutSessionId>,
        subscription: Option<SubscriptionId>,
    ) -> PaymentId {
        let id = Uuid::now_v7();
        let row = PaymentRow {
            id,
            merchant_id: merchant.uuid(),
            livemode,
            status: status.into(),
            charge_type: if subscription.is_some() {
                "recurring"
            } else {
                "one_time"
            }
            .into(),
            subscription_id: subscription.map(|s| s.uuid()),
            customer_id: Some(customer(store, merchant, livemode).await),
            checkout_session_id: session.map(|s| s.uuid()),
            customer_reference: Some("cust-7".into()),
            amount_micros: 10_000_000,
            currency: "USDC".into(),
            fee_micros: 100_000,
            merchant_micros: 9_900_000,
            refunded_micros: 0,
            overpaid_micros: 0,
            wallet_address: addr(0xbb),
            chain_id: if livemode { 8453 } else { 84532 },
            token_address: addr(0xcc),
            tx_hash: Some(format!("0x{}", id.simple().to_string().repeat(2))),
            log_index: Some(3),
            block_number: Some(1234),
            period_key: None,
            block_hash: Some(format!("0x{}", "ab".repeat(32))),
            metadata: r#"{"order":"A-1"}"#.into(),
            created_at: chrono::Utc::now(),
        };
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(payments::table)
            .values(&row)
            .execute(&mut conn)
            .await
            .expect("insert payment");
        PaymentId::from_uuid(id)
    }

    pub async fn refund(
        store: &PgStore,
        merchant: MerchantId,
        livemode: bool,
        payment: PaymentId,
    ) -> RefundId {
        let id = Uuid::now_v7();
        let row = RefundRow {
            id,
            merchant_id: merchant.uuid(),
            livemode,
            status: "succeeded".into(),
            payment_id: payment.uuid(),
            amount_micros: 2_500_000,
            currency: "USDC".into(),
            chain_id: if livemode { 8453 } else { 84532 },
            token_address: addr(0xcc),
            from_address: addr(0xaa),
            to_address: addr(0xbb),
            tx_hash: format!("0x{}", id.simple().to_string().repeat(2)),
            log_index: 0,
            reason: Some("damaged".into()),
            created_at: chrono::Utc::now(),
        };
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(refunds::table)
            .values(&row)
            .execute(&mut conn)
            .await
            .expect("insert refund");
        RefundId::from_uuid(id)
    }

    pub async fn subscription(
        store: &PgStore,
        merchant: MerchantId,
        status: &str,
        wallet: u8,
    ) -> SubscriptionId {
        let id = Uuid::now_v7();
        subscription_on(
            store,
            merchant,
            status,
            wallet,
            0xee,
            &id.simple().to_string(),
        )
        .await
        .expect("insert subscription")
    }

    /// A live-mode subscription held by manager `0xMM…` (`manager` repeated) as
    /// `chain_subscription_id`; the database's refusal, if any, as text.
    pub async fn subscription_on(
        store: &PgStore,
        merchant: MerchantId,
        status: &str,
        wallet: u8,
        manager: u8,
        chain_subscription_id: &str,
    ) -> Result<SubscriptionId, String> {
        let id = Uuid::now_v7();
        let row = SubscriptionRow {
            id,
            merchant_id: merchant.uuid(),
            livemode: true,
            status: status.into(),
            title: "Pro plan".into(),
            customer_id: customer(store, merchant, true).await,
            wallet_address: addr(wallet),
            chain_id: 8453,
            chain_subscription_id: chain_subscription_id.into(),
            chain_plan_id: "7".into(),
            amount_micros: 5_000_000,
            fee_micros: 50_000,
            interval_seconds: 2_592_000,
            next_payment_at: Some(chrono::Utc::now()),
            canceled_at: None,
            retry_count: 0,
            next_retry_at: None,
            last_failure_code: None,
            created_at: chrono::Utc::now(),
        };
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(subscriptions::table)
            .values((
                &row,
                subscriptions::manager_address.eq(addr(manager)),
                subscriptions::recipient_address.eq(addr(0xef)),
                subscriptions::token_address.eq(addr(0xed)),
            ))
            .execute(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
        Ok(SubscriptionId::from_uuid(id))
    }

    pub async fn attempt(
        store: &PgStore,
        merchant: MerchantId,
        subscription: SubscriptionId,
        status: &str,
        n: i32,
    ) {
        let row = PaymentAttemptRow {
            id: Uuid::now_v7(),
            merchant_id: merchant.uuid(),
            livemode: true,
            subscription_id: subscription.uuid(),
            payment_id: None,
            status: status.into(),
            attempt_number: n,
            period_key: chrono::Utc::now(),
            failure_code: (status == "failed").then(|| "insufficient_allowance".into()),
            failure_reason: (status == "failed").then(|| "allowance below the plan amount".into()),
            tx_hash: None,
            created_at: chrono::Utc::now(),
        };
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(payment_attempts::table)
            .values(&row)
            .execute(&mut conn)
            .await
            .expect("insert attempt");
    }

    /// A delivery record for an endpoint, as the outbox router will write them.
    pub async fn webhook_event(
        store: &PgStore,
        merchant: MerchantId,
        livemode: bool,
        endpoint: stablepay_domain::WebhookEndpointId,
        event_type: &str,
        status: &str,
    ) -> stablepay_domain::EventId {
        use crate::rows::WebhookEventRow;
        use crate::schema::webhook_events;
        let id = Uuid::now_v7();
        let event = stablepay_domain::EventId::from_uuid(id);
        let row = WebhookEventRow {
            id,
            event_id: None,
            merchant_id: merchant.uuid(),
            livemode,
            event_type: event_type.into(),
            endpoint_id: endpoint.uuid(),
            status: status.into(),
            attempts: if status == "pending" { 0 } else { 1 },
            next_attempt_at: (status == "pending").then(chrono::Utc::now),
            last_attempt_at: None,
            last_error: None,
            response_status: (status == "succeeded").then_some(200),
            resend_of: None,
            payload: format!(
                r#"{{"id":"{event}","type":"{event_type}","created_at":"2026-01-01T00:00:00.000Z","data":{{"object":{{}}}}}}"#
            ),
            created_at: chrono::Utc::now(),
        };
        let mut conn = store.conn().await.expect("conn");
        diesel::insert_into(webhook_events::table)
            .values(&row)
            .execute(&mut conn)
            .await
            .expect("insert webhook event");
        event
    }

    /// One attempt at a delivery record, as the worker records them.
    pub async fn webhook_attempt(
        store: &PgStore,
        delivery: stablepay_domain::EventId,
        response_status: Option<i32>,
        response_body: Option<&str>,
        error: Option<&str>,
    ) -> stablepay_domain::WebhookAttemptId {
        let id = Uuid::now_v7();
        let sql =
            format!(
            "INSERT INTO webhook_attempts (id, delivery_id, merchant_id, livemode, attempted_at, \
             duration_ms, response_status, error, response_body) \
             SELECT '{id}', id, merchant_id, livemode, now(), 42, {}, {}, {} \
             FROM webhook_events WHERE id = '{}'",
            response_status.map_or("NULL".to_owned(), |s| s.to_string()),
            error.map_or("NULL".to_owned(), |e| format!("'{}'", e.replace('\'', "''"))),
            response_body.map_or("NULL".to_owned(), |b| format!("'{}'", b.replace('\'', "''"))),
            delivery.uuid()
        );
        assert_eq!(
            super::execute_sql(store, &sql).await,
            Ok(1),
            "insert webhook attempt"
        );
        stablepay_domain::WebhookAttemptId::from_uuid(id)
    }
}

/// A stored, open 10 USDC payment session of `merchant` on Base Sepolia (9.9 net, 0.1
/// fee), created now and expiring in an hour; `deposit_address` as given.
pub async fn stored_session(
    store: &PgStore,
    merchant: stablepay_domain::MerchantId,
    deposit_address: Option<stablepay_domain::Address>,
) -> stablepay_domain::CheckoutSession {
    use stablepay_domain::*;
    let now = chrono::Utc::now();
    let session = CheckoutSession {
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
    };
    stablepay_domain::ports::SessionRepository::insert(store, &session)
        .await
        .expect("session");
    session
}
