//! Resources the API reads back: payments, refunds, subscriptions, payment attempts and
//! webhook events, with their status vocabularies and list filters.

use super::{
    Address, Amount, BlockHash, ChainId, CheckoutSessionId, Currency, CustomerId, EventId,
    EventType, MerchantId, Mode, PaymentAttemptId, PaymentId, RefundId, SubscriptionId, Timestamp,
    TxHash, WebhookAttemptId, WebhookEndpointId,
};

macro_rules! status_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }

            /// "a, b or c", for error messages.
            pub fn expected() -> String {
                let names: Vec<&str> = Self::ALL.iter().map(|s| s.as_str()).collect();
                match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} or {}", rest.join(", "), last),
                    _ => names.join(""),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                crate::representation::schema::string_enum(
                    Self::ALL.iter().map(|s| s.as_str()),
                    stringify!($name),
                )
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}
pub(crate) use status_enum;

status_enum!(/// D8.
    PaymentStatus { Pending => "pending", Confirmed => "confirmed", Failed => "failed", Refunded => "refunded" });
status_enum!(/// D8.
    ChargeType { OneTime => "one_time", Recurring => "recurring" });
status_enum!(/// D9.
    RefundStatus { Succeeded => "succeeded" });
status_enum!(/// D10.
SubscriptionStatus {
    Pending => "pending", Active => "active", PastDue => "past_due",
    Paused => "paused", Canceled => "canceled", Expired => "expired",
});
status_enum!(AttemptStatus { Succeeded => "succeeded", Failed => "failed" });
status_enum!(DeliveryStatus { Pending => "pending", Succeeded => "succeeded", Failed => "failed" });

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payment {
    pub id: PaymentId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub status: PaymentStatus,
    pub charge_type: ChargeType,
    pub subscription: Option<SubscriptionId>,
    pub customer: Option<CustomerId>,
    pub checkout_session: Option<CheckoutSessionId>,
    pub customer_reference: Option<String>,
    pub amount: Amount,
    pub currency: Currency,
    pub fee_micros: u64,
    pub merchant_micros: u64,
    pub refunded_micros: u64,
    /// What a deposit payment received beyond `amount` (D24); 0 for every other payment.
    pub overpaid_micros: u64,
    /// What a deposit payment fell short of its session's amount when it completed the
    /// session within the session's tolerance (D32); 0 for every other payment. `amount`
    /// is then what arrived.
    pub underpaid_micros: u64,
    /// A confirmed payment whose transaction a reorg took out (D32): its entries are
    /// reversed in the ledger and it is `failed`. Only the re-check of booked payments
    /// books it again (no settlement path revives it, so its events never fire twice).
    pub reversed: bool,
    /// Held for the merchant's review (D33): its payer was listed after the money moved.
    pub review: Option<super::PaymentReview>,
    pub wallet_address: Address,
    pub chain: ChainId,
    pub token_address: Address,
    /// `None` only for a recurring charge that failed before a transaction was sent.
    pub tx_hash: Option<TxHash>,
    pub log_index: Option<u64>,
    pub block_number: Option<u64>,
    /// The hash of the block the payment was last seen in (D17: tells a reorg apart from
    /// a lagging node). `None` only for records written before it was tracked.
    pub block_hash: Option<BlockHash>,
    /// The billing period a recurring charge pays (its start); `None` for one-time.
    pub period_key: Option<Timestamp>,
    pub metadata: String,
    pub created_at: Timestamp,
}

impl Payment {
    /// Whether a settlement path may write this payment again when its transaction shows
    /// up: only a failed one that was never booked. A reversed payment (D32) is booked
    /// again only by the re-check of booked payments, so its events never fire twice.
    pub fn is_revivable(&self) -> bool {
        self.status == PaymentStatus::Failed && !self.reversed
    }

    /// Everything the payer sent for this payment: its amount and any overpayment.
    pub fn received_micros(&self) -> u64 {
        self.amount.micros() + self.overpaid_micros
    }

    /// What may still be refunded: everything received (an overpayment too) less refunds.
    pub fn refundable_micros(&self) -> u64 {
        self.received_micros().saturating_sub(self.refunded_micros)
    }

    /// Whether refunds may be recorded against it at all: only a confirmed payment (one
    /// already refunded in full keeps its status `refunded` and has nothing left).
    pub fn takes_refunds(&self) -> bool {
        matches!(
            self.status,
            PaymentStatus::Confirmed | PaymentStatus::Refunded
        )
    }

    /// Whether a refund of it can be recorded now: it takes refunds and has money left.
    pub fn can_refund(&self) -> bool {
        self.takes_refunds() && self.refundable_micros() > 0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    pub id: RefundId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub status: RefundStatus,
    pub payment: PaymentId,
    pub amount: Amount,
    pub currency: Currency,
    pub chain: ChainId,
    pub token_address: Address,
    pub from_address: Address,
    pub to_address: Address,
    pub tx_hash: TxHash,
    pub reason: Option<String>,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub id: SubscriptionId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub status: SubscriptionStatus,
    pub title: String,
    pub customer: CustomerId,
    pub wallet_address: Address,
    pub chain: ChainId,
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentAttempt {
    pub id: PaymentAttemptId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
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

/// One attempt to deliver a record, as the worker made it (insert-only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookAttempt {
    pub id: WebhookAttemptId,
    pub delivery: EventId,
    /// When the request was started.
    pub attempted_at: Timestamp,
    pub duration_ms: u32,
    pub response_status: Option<u16>,
    pub error: Option<String>,
    /// The first KiB of the response body, as text.
    pub response_body: Option<String>,
}

/// One delivery record: one per (logical event, endpoint), plus one per resend (D13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEventRecord {
    pub id: EventId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub event_type: EventType,
    pub endpoint: WebhookEndpointId,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub next_attempt_at: Option<Timestamp>,
    pub last_attempt_at: Option<Timestamp>,
    pub last_error: Option<String>,
    pub response_status: Option<u16>,
    pub resend_of: Option<EventId>,
    /// The exact envelope bytes that are (re)delivered.
    pub payload: String,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentFilter {
    pub subscription: Option<SubscriptionId>,
    pub checkout_session: Option<CheckoutSessionId>,
    pub status: Option<PaymentStatus>,
    /// Payments held for review in this state (D33): `pending` is the review queue.
    pub review: Option<super::ReviewStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefundFilter {
    pub payment: Option<PaymentId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubscriptionFilter {
    pub status: Option<SubscriptionStatus>,
    pub wallet_address: Option<Address>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaymentAttemptFilter {
    pub subscription: Option<SubscriptionId>,
    pub status: Option<AttemptStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebhookEventFilter {
    pub status: Option<DeliveryStatus>,
    pub event_type: Option<EventType>,
    /// Deliveries to one endpoint (the dashboard's per-endpoint list; an API extra).
    pub endpoint: Option<WebhookEndpointId>,
}

/// Settled money of one day and currency: confirmed and refunded payments, by the day
/// they were created (UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailyTotal {
    pub day: chrono::NaiveDate,
    pub currency: Currency,
    pub payments: u64,
    pub gross_micros: u64,
    pub fee_micros: u64,
    pub net_micros: u64,
    pub refunded_micros: u64,
}

/// A customer as seen in payments (D7): the payer wallet and what it paid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerSummary {
    pub id: CustomerId,
    pub wallet_address: Address,
    pub customer_reference: Option<String>,
    pub payments: u64,
    /// What its confirmed and refunded payments add up to in each token it paid in (never
    /// summed across tokens), in `Currency::ALL`'s order.
    pub paid_micros: Vec<(Currency, u64)>,
    pub created_at: Timestamp,
    pub last_payment_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFilter {
    pub status: Option<super::SessionStatus>,
    /// Parsed like the reference a session is created with (a value no session can hold,
    /// such as one with a NUL byte, is refused at the edge).
    pub customer_reference: Option<super::CustomerReference>,
    /// Only the sessions this payment link opened.
    pub payment_link: Option<super::PaymentLinkId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_vocabularies_round_trip() {
        for s in SubscriptionStatus::ALL {
            assert_eq!(SubscriptionStatus::parse(s.as_str()), Some(*s));
        }
        assert_eq!(
            PaymentStatus::expected(),
            "pending, confirmed, failed or refunded"
        );
        assert_eq!(PaymentStatus::parse("settled"), None);
    }

    #[test]
    fn a_payment_can_be_refunded_while_confirmed_with_money_left() {
        use crate::services::fixtures::subscriptions::{payment, record};
        let mut p = payment(
            &record(SubscriptionStatus::Active),
            PaymentStatus::Confirmed,
        );
        p.overpaid_micros = 500;
        assert_eq!(p.refundable_micros(), p.amount.micros() + 500);
        assert!(p.can_refund());
        p.refunded_micros = p.received_micros() - 1;
        assert!(p.can_refund(), "one micro-unit left");
        p.refunded_micros = p.received_micros();
        p.status = PaymentStatus::Refunded;
        assert!(p.takes_refunds() && !p.can_refund(), "nothing left");
        for status in [PaymentStatus::Pending, PaymentStatus::Failed] {
            p.status = status;
            p.refunded_micros = 0;
            assert!(!p.takes_refunds() && !p.can_refund(), "{status:?}");
        }
    }
}
