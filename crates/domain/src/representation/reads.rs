//! Payments, refunds, subscriptions, payment attempts and webhook events.

use super::Resource;
use crate::model::*;
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::raw_json;

#[derive(Serialize, ToSchema)]
pub struct PaymentResource {
    pub id: PaymentId,
    pub object: &'static str,
    pub livemode: bool,
    pub status: PaymentStatus,
    pub charge_type: ChargeType,
    pub subscription: Option<SubscriptionId>,
    pub customer: Option<CustomerId>,
    pub checkout_session: Option<CheckoutSessionId>,
    pub customer_reference: Option<String>,
    pub amount: Amount,
    pub currency: Currency,
    #[schema(value_type = Amount)]
    pub fee_amount: String,
    #[schema(value_type = Amount)]
    pub merchant_amount: String,
    #[schema(value_type = Amount)]
    pub refunded_amount: String,
    /// What arrived beyond `amount` at a session's deposit address ("0" unless more than
    /// the session's amount arrived; D24). Refundable like the rest.
    #[schema(value_type = Amount)]
    pub overpaid_amount: String,
    /// What the session's amount lacked when this deposit payment completed it within
    /// the session's underpayment tolerance (D32; `amount` is then what arrived); null
    /// otherwise.
    #[schema(value_type = Option<Amount>)]
    pub underpaid_amount: Option<String>,
    pub wallet_address: Address,
    pub chain_id: ChainId,
    pub token_address: Address,
    pub tx_hash: Option<TxHash>,
    pub log_index: Option<u64>,
    pub block_number: Option<String>,
    /// Set when the payment is held for the merchant's review (D33): its payer was listed
    /// by a sanctions source after the money moved. Null when it never was.
    pub review: Option<PaymentReviewResource>,
    #[schema(value_type = Object)]
    pub metadata: Box<RawValue>,
    pub created_at: Timestamp,
}

/// A payment's review (D33).
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[schema(as = PaymentReview)]
pub struct PaymentReviewResource {
    /// `pending` until the merchant approves (`approved`) or returns it (`returned`).
    pub status: crate::model::ReviewStatus,
    pub reason: String,
    /// The source that listed the payer: `sanctions_oracle` or an imported list's name.
    pub source: String,
    pub decided_at: Option<Timestamp>,
}

impl From<crate::model::PaymentReview> for PaymentReviewResource {
    fn from(r: crate::model::PaymentReview) -> Self {
        Self {
            status: r.status,
            reason: r.reason,
            source: r.source,
            decided_at: r.decided_at,
        }
    }
}

impl From<Payment> for PaymentResource {
    fn from(p: Payment) -> Self {
        Self {
            id: p.id,
            object: Self::OBJECT,
            livemode: p.mode.is_live(),
            status: p.status,
            charge_type: p.charge_type,
            subscription: p.subscription,
            customer: p.customer,
            checkout_session: p.checkout_session,
            customer_reference: p.customer_reference,
            amount: p.amount,
            currency: p.currency,
            fee_amount: render_micros(p.fee_micros),
            merchant_amount: render_micros(p.merchant_micros),
            refunded_amount: render_micros(p.refunded_micros),
            overpaid_amount: render_micros(p.overpaid_micros),
            underpaid_amount: (p.underpaid_micros > 0).then(|| render_micros(p.underpaid_micros)),
            wallet_address: p.wallet_address,
            chain_id: p.chain,
            token_address: p.token_address,
            tx_hash: p.tx_hash,
            log_index: p.log_index,
            block_number: p.block_number.map(|n| n.to_string()),
            review: p.review.map(PaymentReviewResource::from),
            metadata: raw_json(&p.metadata),
            created_at: p.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct RefundResource {
    pub id: RefundId,
    pub object: &'static str,
    pub livemode: bool,
    pub status: RefundStatus,
    pub payment: PaymentId,
    pub amount: Amount,
    pub currency: Currency,
    pub chain_id: ChainId,
    pub token_address: Address,
    pub from_address: Address,
    pub to_address: Address,
    pub tx_hash: TxHash,
    pub reason: Option<String>,
    pub created_at: Timestamp,
}

impl From<Refund> for RefundResource {
    fn from(r: Refund) -> Self {
        Self {
            id: r.id,
            object: Self::OBJECT,
            livemode: r.mode.is_live(),
            status: r.status,
            payment: r.payment,
            amount: r.amount,
            currency: r.currency,
            chain_id: r.chain,
            token_address: r.token_address,
            from_address: r.from_address,
            to_address: r.to_address,
            tx_hash: r.tx_hash,
            reason: r.reason,
            created_at: r.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SubscriptionResource {
    pub id: SubscriptionId,
    pub object: &'static str,
    pub livemode: bool,
    pub status: SubscriptionStatus,
    pub title: String,
    pub customer: CustomerId,
    pub wallet_address: Address,
    pub chain_id: ChainId,
    pub chain_subscription_id: String,
    pub chain_plan_id: String,
    pub amount: Amount,
    pub interval_seconds: u64,
    pub next_payment_at: Option<Timestamp>,
    pub canceled_at: Option<Timestamp>,
    pub retry_count: u32,
    pub next_retry_at: Option<Timestamp>,
    pub last_failure_code: Option<String>,
    pub created_at: Timestamp,
}

impl From<Subscription> for SubscriptionResource {
    fn from(s: Subscription) -> Self {
        Self {
            id: s.id,
            object: Self::OBJECT,
            livemode: s.mode.is_live(),
            status: s.status,
            title: s.title,
            customer: s.customer,
            wallet_address: s.wallet_address,
            chain_id: s.chain,
            chain_subscription_id: s.chain_subscription_id,
            chain_plan_id: s.chain_plan_id,
            amount: s.amount,
            interval_seconds: s.interval_seconds,
            next_payment_at: s.next_payment_at,
            canceled_at: s.canceled_at,
            retry_count: s.retry_count,
            next_retry_at: s.next_retry_at,
            last_failure_code: s.last_failure_code,
            created_at: s.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct PaymentAttemptResource {
    pub id: PaymentAttemptId,
    pub object: &'static str,
    pub livemode: bool,
    pub subscription: SubscriptionId,
    pub payment: Option<PaymentId>,
    pub status: AttemptStatus,
    pub attempt_number: u32,
    pub period_key: Timestamp,
    pub failure_code: Option<String>,
    pub failure_reason: Option<String>,
    pub tx_hash: Option<TxHash>,
    pub created_at: Timestamp,
}

impl From<PaymentAttempt> for PaymentAttemptResource {
    fn from(a: PaymentAttempt) -> Self {
        Self {
            id: a.id,
            object: Self::OBJECT,
            livemode: a.mode.is_live(),
            subscription: a.subscription,
            payment: a.payment,
            status: a.status,
            attempt_number: a.attempt_number,
            period_key: a.period_key,
            failure_code: a.failure_code,
            failure_reason: a.failure_reason,
            tx_hash: a.tx_hash,
            created_at: a.created_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct WebhookEventResource {
    pub id: EventId,
    pub object: &'static str,
    pub livemode: bool,
    #[serde(rename = "type")]
    pub event_type: EventType,
    pub endpoint: WebhookEndpointId,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub next_attempt_at: Option<Timestamp>,
    pub last_attempt_at: Option<Timestamp>,
    pub last_error: Option<String>,
    pub response_status: Option<u16>,
    pub resend_of: Option<EventId>,
    #[schema(value_type = Object)]
    pub payload: Box<RawValue>,
    pub created_at: Timestamp,
}

impl From<WebhookEventRecord> for WebhookEventResource {
    fn from(e: WebhookEventRecord) -> Self {
        Self {
            id: e.id,
            object: Self::OBJECT,
            livemode: e.mode.is_live(),
            event_type: e.event_type,
            endpoint: e.endpoint,
            status: e.status,
            attempts: e.attempts,
            next_attempt_at: e.next_attempt_at,
            last_attempt_at: e.last_attempt_at,
            last_error: e.last_error,
            response_status: e.response_status,
            resend_of: e.resend_of,
            payload: raw_json(&e.payload),
            created_at: e.created_at,
        }
    }
}

/// One attempt at a delivery (an extra beyond the spec: `GET /webhook_events/{id}/attempts`).
#[derive(Serialize, ToSchema)]
pub struct WebhookAttemptResource {
    pub id: WebhookAttemptId,
    pub object: &'static str,
    pub livemode: bool,
    pub webhook_event: EventId,
    pub attempted_at: Timestamp,
    pub duration_ms: u32,
    pub response_status: Option<u16>,
    /// Why no response was had (timeout, refused, connection), else null.
    pub error: Option<String>,
    /// The first KiB of the response body.
    pub response_body: Option<String>,
}

impl WebhookAttemptResource {
    pub fn new(a: WebhookAttempt, mode: Mode) -> Self {
        Self {
            id: a.id,
            object: Self::OBJECT,
            livemode: mode.is_live(),
            webhook_event: a.delivery,
            attempted_at: a.attempted_at,
            duration_ms: a.duration_ms,
            response_status: a.response_status,
            error: a.error,
            response_body: a.response_body,
        }
    }
}

impl Resource for PaymentResource {
    const OBJECT: &'static str = "payment";
}

impl Resource for RefundResource {
    const OBJECT: &'static str = "refund";
}

impl Resource for SubscriptionResource {
    const OBJECT: &'static str = "subscription";
}

impl Resource for PaymentAttemptResource {
    const OBJECT: &'static str = "payment_attempt";
}

impl Resource for WebhookEventResource {
    const OBJECT: &'static str = "webhook_event";
}

impl Resource for WebhookAttemptResource {
    const OBJECT: &'static str = "webhook_attempt";
}
