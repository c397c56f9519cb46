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
        underpaid_micros: 0,
        reversed: false,
        review_status: None,
        review_reason: None,
        review_source: None,
        reviewed_at: None,
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
    let sql = format!(
        "INSERT INTO webhook_attempts (id, delivery_id, merchant_id, livemode, attempted_at, \
         duration_ms, response_status, error, response_body) \
         SELECT '{id}', id, merchant_id, livemode, now(), 42, {}, {}, {} \
         FROM webhook_events WHERE id = '{}'",
        response_status.map_or("NULL".to_owned(), |s| s.to_string()),
        error.map_or("NULL".to_owned(), |e| format!(
            "'{}'",
            e.replace('\'', "''")
        )),
        response_body.map_or("NULL".to_owned(), |b| format!(
            "'{}'",
            b.replace('\'', "''")
        )),
        delivery.uuid()
    );
    assert_eq!(
        super::execute_sql(store, &sql).await,
        Ok(1),
        "insert webhook attempt"
    );
    stablepay_domain::WebhookAttemptId::from_uuid(id)
}
