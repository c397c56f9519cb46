//! Subscription rows beyond the API resource: the billing terms and the write version.

use diesel::prelude::*;
use stablepay_domain::ports::{StoreError, SubscriptionRecord};
use stablepay_domain::*;
use uuid::Uuid;

use super::conv::*;
use super::SubscriptionRow;
use crate::schema::subscriptions;

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = subscriptions, check_for_backend(diesel::pg::Pg))]
pub struct SubscriptionTermsRow {
    pub manager_address: String,
    pub recipient_address: String,
    pub token_address: String,
    pub checkout_session_id: Option<Uuid>,
    pub customer_reference: Option<String>,
    pub metadata: String,
    pub version: i64,
}

/// Everything a new subscription row holds: the API fields plus the billing terms.
#[derive(Insertable, Debug, Clone)]
#[diesel(table_name = subscriptions, check_for_backend(diesel::pg::Pg))]
pub struct NewSubscriptionRow {
    #[diesel(embed)]
    pub resource: SubscriptionRow,
    pub manager_address: String,
    pub recipient_address: String,
    pub token_address: String,
    pub checkout_session_id: Option<Uuid>,
    pub customer_reference: Option<String>,
    pub metadata: String,
    pub version: i64,
}

pub(crate) fn new_subscription_row(r: &SubscriptionRecord) -> NewSubscriptionRow {
    let s = &r.subscription;
    NewSubscriptionRow {
        resource: SubscriptionRow {
            id: s.id.uuid(),
            merchant_id: s.merchant_id.uuid(),
            livemode: s.mode.is_live(),
            status: s.status.as_str().to_owned(),
            title: s.title.clone(),
            customer_id: s.customer.uuid(),
            wallet_address: s.wallet_address.to_lower_hex(),
            chain_id: s.chain.id() as i32,
            chain_subscription_id: s.chain_subscription_id.clone(),
            chain_plan_id: s.chain_plan_id.clone(),
            amount_micros: to_i64(s.amount.micros()),
            fee_micros: to_i64(r.fee_micros),
            interval_seconds: to_i64(s.interval_seconds),
            next_payment_at: s.next_payment_at.map(|t| t.as_datetime()),
            canceled_at: s.canceled_at.map(|t| t.as_datetime()),
            retry_count: i32::try_from(s.retry_count).unwrap_or(i32::MAX),
            next_retry_at: s.next_retry_at.map(|t| t.as_datetime()),
            last_failure_code: s.last_failure_code.clone(),
            created_at: s.created_at.as_datetime(),
        },
        manager_address: r.manager.to_lower_hex(),
        recipient_address: r.recipient.to_lower_hex(),
        token_address: r.token.to_lower_hex(),
        checkout_session_id: r.checkout_session.map(|c| c.uuid()),
        customer_reference: r.customer_reference.clone(),
        metadata: r.metadata.clone(),
        version: r.version,
    }
}

pub(crate) fn subscription_record(
    (row, terms): (SubscriptionRow, SubscriptionTermsRow),
) -> Result<SubscriptionRecord, StoreError> {
    let fee_micros = micros(row.fee_micros)?;
    Ok(SubscriptionRecord {
        subscription: Subscription::try_from(row)?,
        manager: address(&terms.manager_address)?,
        recipient: address(&terms.recipient_address)?,
        token: address(&terms.token_address)?,
        fee_micros,
        checkout_session: terms.checkout_session_id.map(CheckoutSessionId::from_uuid),
        customer_reference: terms.customer_reference,
        metadata: terms.metadata,
        version: terms.version,
    })
}

/// The row for a new attempt.
pub(crate) fn attempt_row(a: &PaymentAttempt) -> super::PaymentAttemptRow {
    super::PaymentAttemptRow {
        id: a.id.uuid(),
        merchant_id: a.merchant_id.uuid(),
        livemode: a.mode.is_live(),
        subscription_id: a.subscription.uuid(),
        payment_id: a.payment.map(|p| p.uuid()),
        status: a.status.as_str().to_owned(),
        attempt_number: i32::try_from(a.attempt_number).unwrap_or(i32::MAX),
        period_key: a.period_key.as_datetime(),
        failure_code: a.failure_code.clone(),
        failure_reason: a.failure_reason.clone(),
        tx_hash: a.tx_hash.map(|t| t.to_string()),
        created_at: a.created_at.as_datetime(),
    }
}
