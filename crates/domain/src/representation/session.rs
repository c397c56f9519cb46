use super::Resource;
use crate::model::{
    render_micros, Address, Amount, ChainId, CheckoutSession, CheckoutSessionId, Currency,
    CustomerId, PaymentLinkId, SessionMode, SessionStatus, SubscriptionId, Timestamp, TxHash,
};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::{raw_json, PriceResource, QuoteResource};

#[derive(Serialize, ToSchema)]
pub struct CheckoutSessionResource {
    pub id: CheckoutSessionId,
    pub object: &'static str,
    pub livemode: bool,
    pub url: Option<String>,
    /// Where an agent pays by x402 (`GET` answers 402 with the payment requirements): an
    /// open payment-mode session in USDC or EURC with a deposit address; null otherwise.
    pub x402_url: Option<String>,
    pub mode: SessionMode,
    pub status: SessionStatus,
    pub title: String,
    pub description: Option<String>,
    pub amount: Amount,
    pub currency: Currency,
    pub fee_bps: u16,
    #[schema(value_type = Amount)]
    pub fee_amount: String,
    #[schema(value_type = Amount)]
    pub merchant_net_amount: String,
    pub fee_tier: String,
    pub chain_id: ChainId,
    pub token_address: Address,
    pub interval_seconds: Option<u64>,
    pub chain_plan_id: Option<String>,
    pub recipient_address: Address,
    pub customer: Option<CustomerId>,
    pub subscription: Option<SubscriptionId>,
    pub customer_reference: Option<String>,
    pub success_url: Option<String>,
    pub cancel_url: Option<String>,
    pub wallet_address: Option<Address>,
    pub tx_hash: Option<TxHash>,
    #[schema(value_type = Object)]
    pub metadata: Box<RawValue>,
    pub expires_at: Timestamp,
    pub completed_at: Option<Timestamp>,
    pub created_at: Timestamp,
    /// Where the buyer may pay by plain transfer of the session's token (D24); null for
    /// subscriptions and on chains without a deposit factory.
    pub deposit_address: Option<Address>,
    /// The confirmed total received at `deposit_address` (decimal string; "0" at creation).
    #[schema(value_type = Amount)]
    pub amount_received: String,
    /// How far short of `amount`, in basis points of it, a deposit may fall and still
    /// complete the session (D32): the request's, else the merchant's default at creation
    /// (0 unless set); always 0 in subscription mode.
    pub underpayment_tolerance_bps: u16,
    /// What was missing when a deposit completed the session within its tolerance; null
    /// otherwise.
    #[schema(value_type = Option<Amount>)]
    pub underpaid_amount: Option<String>,
    /// The price in a currency the session was created with (D34), which `amount` (in the
    /// token) was converted from; null when priced in token units.
    pub price: Option<PriceResource>,
    /// The rate `price` was converted at; null when priced in token units.
    pub quote: Option<QuoteResource>,
    /// The payment link (`plink_…`) whose visit opened the session; null otherwise.
    pub payment_link: Option<PaymentLinkId>,
    /// The session this one replaced at a new quote, when its buyer asked for one on the
    /// hosted page after that session's quote lapsed (D34); null otherwise. It carries the
    /// same price, `metadata` and `customer_reference`.
    pub requoted_from: Option<CheckoutSessionId>,
}

impl CheckoutSessionResource {
    pub fn new(s: CheckoutSession, public_url: &str) -> Self {
        Self {
            url: s.hosted_url(public_url),
            x402_url: s.x402_url(public_url),
            id: s.id,
            object: Self::OBJECT,
            livemode: s.mode.is_live(),
            mode: s.session_mode,
            status: s.status,
            title: s.title,
            description: s.description,
            amount: s.amount,
            currency: s.currency,
            fee_bps: s.fee_bps,
            fee_amount: render_micros(s.fee_micros),
            merchant_net_amount: render_micros(s.net_micros),
            fee_tier: s.fee_tier,
            chain_id: s.chain,
            token_address: s.token_address,
            interval_seconds: s.interval_seconds,
            chain_plan_id: s.chain_plan_id,
            recipient_address: s.recipient_address,
            customer: s.customer,
            subscription: s.subscription,
            customer_reference: s.customer_reference,
            success_url: s.success_url,
            cancel_url: s.cancel_url,
            wallet_address: s.wallet_address,
            tx_hash: s.tx_hash,
            metadata: raw_json(&s.metadata),
            expires_at: s.expires_at,
            completed_at: s.completed_at,
            created_at: s.created_at,
            deposit_address: s.deposit_address,
            amount_received: render_micros(s.amount_received_micros),
            underpayment_tolerance_bps: s.underpayment_tolerance.bps(),
            underpaid_amount: s.underpaid_micros.map(render_micros),
            price: s.priced.as_ref().map(PriceResource::of),
            quote: s.priced.as_ref().map(QuoteResource::of),
            payment_link: s.payment_link,
            requoted_from: s.requoted_from,
        }
    }
}

impl Resource for CheckoutSessionResource {
    const OBJECT: &'static str = "checkout.session";
}
