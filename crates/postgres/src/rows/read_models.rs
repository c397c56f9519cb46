use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::*;
use crate::error::corrupt;
use crate::schema::{
    payment_attempts, payments, refunds, subscriptions, webhook_attempts, webhook_events,
};

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = payments, check_for_backend(diesel::pg::Pg))]
pub struct PaymentRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub status: String,
    pub charge_type: String,
    pub subscription_id: Option<Uuid>,
    pub customer_id: Option<Uuid>,
    pub checkout_session_id: Option<Uuid>,
    pub customer_reference: Option<String>,
    pub amount_micros: i64,
    pub currency: String,
    pub fee_micros: i64,
    pub merchant_micros: i64,
    pub refunded_micros: i64,
    pub wallet_address: String,
    pub chain_id: i32,
    pub token_address: String,
    pub tx_hash: Option<String>,
    pub log_index: Option<i64>,
    pub block_number: Option<i64>,
    pub block_hash: Option<String>,
    pub period_key: Option<DateTime<Utc>>,
    pub metadata: String,
    pub created_at: DateTime<Utc>,
    pub overpaid_micros: i64,
    pub underpaid_micros: i64,
    pub reversed: bool,
    pub review_status: Option<String>,
    pub review_reason: Option<String>,
    pub review_source: Option<String>,
    pub reviewed_at: Option<DateTime<Utc>>,
}

/// The row for a domain payment.
pub(crate) fn payment_row(p: &Payment) -> PaymentRow {
    PaymentRow {
        id: p.id.uuid(),
        merchant_id: p.merchant_id.uuid(),
        livemode: p.mode.is_live(),
        status: p.status.as_str().to_owned(),
        charge_type: p.charge_type.as_str().to_owned(),
        subscription_id: p.subscription.map(|s| s.uuid()),
        customer_id: p.customer.map(|c| c.uuid()),
        checkout_session_id: p.checkout_session.map(|c| c.uuid()),
        customer_reference: p.customer_reference.clone(),
        amount_micros: to_i64(p.amount.micros()),
        currency: p.currency.as_str().to_owned(),
        fee_micros: to_i64(p.fee_micros),
        merchant_micros: to_i64(p.merchant_micros),
        refunded_micros: to_i64(p.refunded_micros),
        overpaid_micros: to_i64(p.overpaid_micros),
        underpaid_micros: to_i64(p.underpaid_micros),
        reversed: p.reversed,
        review_status: p.review.as_ref().map(|r| r.status.as_str().to_owned()),
        review_reason: p.review.as_ref().map(|r| r.reason.clone()),
        review_source: p.review.as_ref().map(|r| r.source.clone()),
        reviewed_at: p
            .review
            .as_ref()
            .and_then(|r| r.decided_at)
            .map(|t| t.as_datetime()),
        wallet_address: p.wallet_address.to_lower_hex(),
        chain_id: p.chain.id() as i32,
        token_address: p.token_address.to_lower_hex(),
        tx_hash: p.tx_hash.map(|t| t.to_string()),
        log_index: p.log_index.map(to_i64),
        block_number: p.block_number.map(to_i64),
        block_hash: p.block_hash.map(|h| h.to_string()),
        period_key: p.period_key.map(|t| t.as_datetime()),
        metadata: p.metadata.clone(),
        created_at: p.created_at.as_datetime(),
    }
}

impl TryFrom<PaymentRow> for Payment {
    type Error = StoreError;

    fn try_from(r: PaymentRow) -> Result<Self, StoreError> {
        Ok(Payment {
            id: PaymentId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            status: parse_enum("payment status", &r.status, PaymentStatus::parse)?,
            charge_type: parse_enum("charge_type", &r.charge_type, ChargeType::parse)?,
            subscription: r.subscription_id.map(SubscriptionId::from_uuid),
            customer: r.customer_id.map(CustomerId::from_uuid),
            checkout_session: r.checkout_session_id.map(CheckoutSessionId::from_uuid),
            customer_reference: r.customer_reference,
            amount: amount(r.amount_micros)?,
            currency: currency(&r.currency)?,
            fee_micros: micros(r.fee_micros)?,
            merchant_micros: micros(r.merchant_micros)?,
            refunded_micros: micros(r.refunded_micros)?,
            overpaid_micros: micros(r.overpaid_micros)?,
            underpaid_micros: micros(r.underpaid_micros)?,
            reversed: r.reversed,
            review: match (r.review_status.as_deref(), r.review_reason, r.review_source) {
                (Some(status), Some(reason), Some(source)) => Some(PaymentReview {
                    status: parse_enum("review status", status, ReviewStatus::parse)?,
                    reason,
                    source,
                    decided_at: r.reviewed_at.map(ts),
                }),
                _ => None,
            },
            wallet_address: address(&r.wallet_address)?,
            chain: chain(r.chain_id)?,
            token_address: address(&r.token_address)?,
            tx_hash: tx_hash_opt(r.tx_hash.as_deref())?,
            log_index: r.log_index.map(micros).transpose()?,
            block_number: r.block_number.map(micros).transpose()?,
            block_hash: r.block_hash.as_deref().map(block_hash).transpose()?,
            period_key: r.period_key.map(ts),
            metadata: r.metadata,
            created_at: ts(r.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = refunds, check_for_backend(diesel::pg::Pg))]
pub struct RefundRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub status: String,
    pub payment_id: Uuid,
    pub amount_micros: i64,
    pub currency: String,
    pub chain_id: i32,
    pub token_address: String,
    pub from_address: String,
    pub to_address: String,
    pub tx_hash: String,
    pub log_index: i64,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<RefundRow> for Refund {
    type Error = StoreError;

    fn try_from(r: RefundRow) -> Result<Self, StoreError> {
        Ok(Refund {
            id: RefundId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            status: parse_enum("refund status", &r.status, RefundStatus::parse)?,
            payment: PaymentId::from_uuid(r.payment_id),
            amount: amount(r.amount_micros)?,
            currency: currency(&r.currency)?,
            chain: chain(r.chain_id)?,
            token_address: address(&r.token_address)?,
            from_address: address(&r.from_address)?,
            to_address: address(&r.to_address)?,
            tx_hash: tx_hash(&r.tx_hash)?,
            reason: r.reason,
            created_at: ts(r.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = subscriptions, check_for_backend(diesel::pg::Pg))]
pub struct SubscriptionRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub status: String,
    pub title: String,
    pub customer_id: Uuid,
    pub wallet_address: String,
    pub chain_id: i32,
    pub chain_subscription_id: String,
    pub chain_plan_id: String,
    pub amount_micros: i64,
    pub fee_micros: i64,
    pub interval_seconds: i64,
    pub next_payment_at: Option<DateTime<Utc>>,
    pub canceled_at: Option<DateTime<Utc>>,
    pub retry_count: i32,
    pub next_retry_at: Option<DateTime<Utc>>,
    pub last_failure_code: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<SubscriptionRow> for Subscription {
    type Error = StoreError;

    fn try_from(r: SubscriptionRow) -> Result<Self, StoreError> {
        Ok(Subscription {
            id: SubscriptionId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            status: parse_enum("subscription status", &r.status, SubscriptionStatus::parse)?,
            title: r.title,
            customer: CustomerId::from_uuid(r.customer_id),
            wallet_address: address(&r.wallet_address)?,
            chain: chain(r.chain_id)?,
            chain_subscription_id: r.chain_subscription_id,
            chain_plan_id: r.chain_plan_id,
            amount: amount(r.amount_micros)?,
            interval_seconds: micros(r.interval_seconds)?,
            next_payment_at: ts_opt(r.next_payment_at),
            canceled_at: ts_opt(r.canceled_at),
            retry_count: u32::try_from(r.retry_count)
                .map_err(|_| corrupt("retry_count", r.retry_count))?,
            next_retry_at: ts_opt(r.next_retry_at),
            last_failure_code: r.last_failure_code,
            created_at: ts(r.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = payment_attempts, check_for_backend(diesel::pg::Pg))]
pub struct PaymentAttemptRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub subscription_id: Uuid,
    pub payment_id: Option<Uuid>,
    pub status: String,
    pub attempt_number: i32,
    pub period_key: DateTime<Utc>,
    pub failure_code: Option<String>,
    pub failure_reason: Option<String>,
    pub tx_hash: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<PaymentAttemptRow> for PaymentAttempt {
    type Error = StoreError;

    fn try_from(r: PaymentAttemptRow) -> Result<Self, StoreError> {
        Ok(PaymentAttempt {
            id: PaymentAttemptId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            subscription: SubscriptionId::from_uuid(r.subscription_id),
            payment: r.payment_id.map(PaymentId::from_uuid),
            status: parse_enum("attempt status", &r.status, AttemptStatus::parse)?,
            attempt_number: u32::try_from(r.attempt_number)
                .map_err(|_| corrupt("attempt_number", r.attempt_number))?,
            period_key: ts(r.period_key),
            failure_code: r.failure_code,
            failure_reason: r.failure_reason,
            tx_hash: tx_hash_opt(r.tx_hash.as_deref())?,
            created_at: ts(r.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = webhook_events, check_for_backend(diesel::pg::Pg))]
pub struct WebhookEventRow {
    pub id: Uuid,
    pub event_id: Option<Uuid>,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub event_type: String,
    pub endpoint_id: Uuid,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub response_status: Option<i32>,
    pub resend_of: Option<Uuid>,
    pub payload: String,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<WebhookEventRow> for WebhookEventRecord {
    type Error = StoreError;

    fn try_from(r: WebhookEventRow) -> Result<Self, StoreError> {
        Ok(WebhookEventRecord {
            id: EventId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            event_type: parse_enum("event type", &r.event_type, EventType::parse)?,
            endpoint: WebhookEndpointId::from_uuid(r.endpoint_id),
            status: parse_enum("delivery status", &r.status, DeliveryStatus::parse)?,
            attempts: u32::try_from(r.attempts).map_err(|_| corrupt("attempts", r.attempts))?,
            next_attempt_at: ts_opt(r.next_attempt_at),
            last_attempt_at: ts_opt(r.last_attempt_at),
            last_error: r.last_error,
            response_status: r.response_status.and_then(|s| u16::try_from(s).ok()),
            resend_of: r.resend_of.map(EventId::from_uuid),
            payload: r.payload,
            created_at: ts(r.created_at),
        })
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = webhook_attempts, check_for_backend(diesel::pg::Pg))]
pub struct WebhookAttemptRow {
    pub id: Uuid,
    pub delivery_id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub duration_ms: i32,
    pub response_status: Option<i32>,
    pub error: Option<String>,
    pub response_body: Option<String>,
}

impl TryFrom<WebhookAttemptRow> for WebhookAttempt {
    type Error = StoreError;

    fn try_from(r: WebhookAttemptRow) -> Result<Self, StoreError> {
        Ok(WebhookAttempt {
            id: WebhookAttemptId::from_uuid(r.id),
            delivery: EventId::from_uuid(r.delivery_id),
            attempted_at: ts(r.attempted_at),
            duration_ms: u32::try_from(r.duration_ms)
                .map_err(|_| corrupt("duration_ms", r.duration_ms))?,
            response_status: r.response_status.and_then(|s| u16::try_from(s).ok()),
            error: r.error,
            response_body: r.response_body,
        })
    }
}
