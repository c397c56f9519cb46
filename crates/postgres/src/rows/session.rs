use chrono::{DateTime, Utc};
use diesel::prelude::*;
use stablepay_domain::ports::StoreError;
use stablepay_domain::{
    CheckoutSession, CheckoutSessionId, CustomerId, FeedPair, Fiat, MerchantId, Mode,
    PaymentLinkId, Price, Quote, QuotedPrice, SessionMode, SessionStatus, SubscriptionId,
    UnderpaymentTolerance,
};
use uuid::Uuid;

use super::conv::*;
use crate::schema::checkout_sessions;

#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = checkout_sessions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct SessionRow {
    pub id: Uuid,
    pub merchant_id: Uuid,
    pub livemode: bool,
    pub mode: String,
    pub status: String,
    pub title: String,
    pub description: Option<String>,
    pub amount_micros: i64,
    pub currency: String,
    pub fee_bps: i32,
    pub fee_micros: i64,
    pub net_micros: i64,
    pub fee_tier: String,
    pub chain_id: i32,
    pub token_address: String,
    pub interval_seconds: Option<i64>,
    pub chain_plan_id: Option<String>,
    pub recipient_address: String,
    pub customer_id: Option<Uuid>,
    pub subscription_id: Option<Uuid>,
    pub customer_reference: Option<String>,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    pub wallet_address: Option<String>,
    pub tx_hash: Option<String>,
    pub metadata: String,
    pub expires_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub deposit_address: Option<String>,
    pub amount_received_micros: i64,
    pub underpayment_tolerance_bps: i32,
    pub underpaid_micros: Option<i64>,
    /// Kept by the payments trigger (migration 000029), never by a writer here.
    pub awaiting_review: bool,
    pub price_micros: Option<i64>,
    pub price_currency: Option<String>,
    pub quote_pair: Option<String>,
    pub quote_rate_e8: Option<i64>,
    pub quote_feed: Option<String>,
    pub quote_round_id: Option<String>,
    pub quote_updated_at: Option<DateTime<Utc>>,
    pub quote_expires_at: Option<DateTime<Utc>>,
    pub payment_link_id: Option<Uuid>,
    pub requoted_from_id: Option<Uuid>,
}

/// A session as inserted: its row and its on-chain reference (`ref`), which the chain's
/// events find it by and no read returns (every column a read returns costs PostgreSQL
/// per execution).
#[derive(Insertable)]
#[diesel(table_name = checkout_sessions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct NewSessionRow {
    #[diesel(embed)]
    pub session: SessionRow,
    pub session_ref: Vec<u8>,
}

impl SessionRow {
    pub fn from_domain(s: &CheckoutSession) -> Self {
        Self {
            id: s.id.uuid(),
            merchant_id: s.merchant_id.uuid(),
            livemode: s.mode.is_live(),
            mode: s.session_mode.as_str().to_owned(),
            status: s.status.as_str().to_owned(),
            title: s.title.clone(),
            description: s.description.clone(),
            amount_micros: to_i64(s.amount.micros()),
            currency: s.currency.as_str().to_owned(),
            fee_bps: i32::from(s.fee_bps),
            fee_micros: to_i64(s.fee_micros),
            net_micros: to_i64(s.net_micros),
            fee_tier: s.fee_tier.clone(),
            chain_id: s.chain.id() as i32,
            token_address: s.token_address.to_lower_hex(),
            interval_seconds: s.interval_seconds.map(to_i64),
            chain_plan_id: s.chain_plan_id.clone(),
            recipient_address: s.recipient_address.to_lower_hex(),
            customer_id: s.customer.map(|c| c.uuid()),
            subscription_id: s.subscription.map(|c| c.uuid()),
            customer_reference: s.customer_reference.clone(),
            success_url: s.success_url.clone(),
            cancel_url: s.cancel_url.clone(),
            wallet_address: s.wallet_address.map(|a| a.to_lower_hex()),
            tx_hash: s.tx_hash.map(|h| h.to_string()),
            metadata: s.metadata.clone(),
            expires_at: s.expires_at.as_datetime(),
            completed_at: s.completed_at.map(|t| t.as_datetime()),
            created_at: s.created_at.as_datetime(),
            deposit_address: s.deposit_address.map(|a| a.to_lower_hex()),
            amount_received_micros: to_i64(s.amount_received_micros),
            underpayment_tolerance_bps: i32::from(s.underpayment_tolerance.bps()),
            underpaid_micros: s.underpaid_micros.map(to_i64),
            awaiting_review: s.awaiting_review,
            price_micros: s.priced.as_ref().map(|p| to_i64(p.price.amount.micros())),
            price_currency: s.priced.as_ref().map(|p| p.price.fiat.as_str().to_owned()),
            quote_pair: s.priced.as_ref().map(|p| p.quote.pair.as_str().to_owned()),
            quote_rate_e8: s.priced.as_ref().map(|p| to_i64(p.quote.rate_e8)),
            quote_feed: s.priced.as_ref().map(|p| p.quote.feed.to_lower_hex()),
            quote_round_id: s.priced.as_ref().map(|p| p.quote.round_id.to_string()),
            quote_updated_at: s.priced.as_ref().map(|p| p.quote.updated_at.as_datetime()),
            quote_expires_at: s
                .priced
                .as_ref()
                .and_then(|p| p.quote.expires_at)
                .map(|t| t.as_datetime()),
            payment_link_id: s.payment_link.map(|l| l.uuid()),
            requoted_from_id: s.requoted_from.map(|r| r.uuid()),
        }
    }
}

/// A session's price and quote columns, all set or none (the table's check says so too):
/// read with the session, or alone beside a ledger entry.
pub(crate) struct PriceColumns {
    pub id: Uuid,
    pub price_micros: Option<i64>,
    pub price_currency: Option<String>,
    pub quote_pair: Option<String>,
    pub quote_rate_e8: Option<i64>,
    pub quote_feed: Option<String>,
    pub quote_round_id: Option<String>,
    pub quote_updated_at: Option<DateTime<Utc>>,
    pub quote_expires_at: Option<DateTime<Utc>>,
}

impl PriceColumns {
    fn of(r: &SessionRow) -> Self {
        Self {
            id: r.id,
            price_micros: r.price_micros,
            price_currency: r.price_currency.clone(),
            quote_pair: r.quote_pair.clone(),
            quote_rate_e8: r.quote_rate_e8,
            quote_feed: r.quote_feed.clone(),
            quote_round_id: r.quote_round_id.clone(),
            quote_updated_at: r.quote_updated_at,
            quote_expires_at: r.quote_expires_at,
        }
    }

    pub(crate) fn quoted_price(&self) -> Result<Option<QuotedPrice>, StoreError> {
        let r = self;
        let Some(price) = r.price_micros else {
            return Ok(None);
        };
        let corrupt = |what: &str| crate::error::corrupt(what, r.id);
        let fiat = match r.price_currency.as_deref() {
            Some("USD") => Fiat::Usd,
            Some("EUR") => Fiat::Eur,
            _ => return Err(corrupt("price_currency")),
        };
        let pair = r
            .quote_pair
            .as_deref()
            .and_then(FeedPair::parse)
            .ok_or_else(|| corrupt("quote_pair"))?;
        Ok(Some(QuotedPrice {
            price: Price {
                amount: amount(price)?,
                fiat,
            },
            quote: Quote {
                pair,
                rate_e8: r
                    .quote_rate_e8
                    .and_then(|v| u64::try_from(v).ok())
                    .ok_or_else(|| corrupt("quote_rate_e8"))?,
                feed: address(
                    r.quote_feed
                        .as_deref()
                        .ok_or_else(|| corrupt("quote_feed"))?,
                )?,
                round_id: r
                    .quote_round_id
                    .as_deref()
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| corrupt("quote_round_id"))?,
                updated_at: ts(r
                    .quote_updated_at
                    .ok_or_else(|| corrupt("quote_updated_at"))?),
                expires_at: ts_opt(r.quote_expires_at),
            },
        }))
    }
}

impl TryFrom<SessionRow> for CheckoutSession {
    type Error = StoreError;

    fn try_from(r: SessionRow) -> Result<Self, StoreError> {
        let priced = PriceColumns::of(&r).quoted_price()?;
        Ok(CheckoutSession {
            id: CheckoutSessionId::from_uuid(r.id),
            merchant_id: MerchantId::from_uuid(r.merchant_id),
            mode: Mode::from_livemode(r.livemode),
            session_mode: parse_enum("mode", &r.mode, SessionMode::parse)?,
            status: parse_enum("status", &r.status, SessionStatus::parse)?,
            title: r.title,
            description: r.description,
            amount: amount(r.amount_micros)?,
            currency: currency(&r.currency)?,
            fee_bps: u16::try_from(r.fee_bps)
                .map_err(|_| crate::error::corrupt("fee_bps", r.fee_bps))?,
            fee_micros: micros(r.fee_micros)?,
            net_micros: micros(r.net_micros)?,
            fee_tier: r.fee_tier,
            chain: chain(r.chain_id)?,
            token_address: address(&r.token_address)?,
            interval_seconds: r.interval_seconds.map(micros).transpose()?,
            chain_plan_id: r.chain_plan_id,
            recipient_address: address(&r.recipient_address)?,
            customer: r.customer_id.map(CustomerId::from_uuid),
            subscription: r.subscription_id.map(SubscriptionId::from_uuid),
            customer_reference: r.customer_reference,
            success_url: r.success_url,
            cancel_url: r.cancel_url,
            wallet_address: address_opt(r.wallet_address.as_deref())?,
            tx_hash: tx_hash_opt(r.tx_hash.as_deref())?,
            metadata: r.metadata,
            expires_at: ts(r.expires_at),
            completed_at: ts_opt(r.completed_at),
            created_at: ts(r.created_at),
            deposit_address: address_opt(r.deposit_address.as_deref())?,
            amount_received_micros: micros(r.amount_received_micros)?,
            underpayment_tolerance: u16::try_from(r.underpayment_tolerance_bps)
                .ok()
                .and_then(UnderpaymentTolerance::from_bps)
                .ok_or_else(|| {
                    crate::error::corrupt(
                        "underpayment_tolerance_bps",
                        r.underpayment_tolerance_bps,
                    )
                })?,
            priced,
            underpaid_micros: r.underpaid_micros.map(micros).transpose()?,
            awaiting_review: r.awaiting_review,
            payment_link: r.payment_link_id.map(PaymentLinkId::from_uuid),
            requoted_from: r.requoted_from_id.map(CheckoutSessionId::from_uuid),
        })
    }
}
