//! The checkout session and its state machine.

use super::{
    Address, Amount, ChainId, CheckoutSessionId, Currency, CustomerId, MerchantId, Mode,
    QuotedPrice, SubscriptionId, Timestamp, TxHash, UnderpaymentTolerance,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionMode {
    Payment,
    Subscription,
}

impl SessionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionMode::Payment => "payment",
            SessionMode::Subscription => "subscription",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "payment" => Some(SessionMode::Payment),
            "subscription" => Some(SessionMode::Subscription),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    Open,
    Completed,
    Expired,
}

impl SessionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Open => "open",
            SessionStatus::Completed => "completed",
            SessionStatus::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(SessionStatus::Open),
            "completed" => Some(SessionStatus::Completed),
            "expired" => Some(SessionStatus::Expired),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutSession {
    pub id: CheckoutSessionId,
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub session_mode: SessionMode,
    pub status: SessionStatus,
    pub title: String,
    pub description: Option<String>,
    pub amount: Amount,
    pub currency: Currency,
    pub fee_bps: u16,
    /// Micro-units; may be zero (a 0 bps tier, or an amount too small to carry a fee).
    pub fee_micros: u64,
    pub net_micros: u64,
    pub fee_tier: String,
    pub chain: ChainId,
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
    /// The merchant's metadata object exactly as sent (raw JSON text), echoed verbatim.
    pub metadata: String,
    pub expires_at: Timestamp,
    pub completed_at: Option<Timestamp>,
    pub created_at: Timestamp,
    /// Where the buyer may pay by plain transfer (D24): a payment session on a chain with a
    /// deposit factory.
    pub deposit_address: Option<Address>,
    /// What has arrived at `deposit_address`, confirmed at depth, in micro-units.
    pub amount_received_micros: u64,
    /// How far short of `amount` a deposit may fall and still complete the session (D32).
    pub underpayment_tolerance: UnderpaymentTolerance,
    /// What was missing when a deposit completed the session within its tolerance.
    pub underpaid_micros: Option<u64>,
    /// A payment of this session, paid, waits for the merchant's review (D33): the session
    /// stays open past its expiry until the review is decided.
    pub awaiting_review: bool,
    /// Priced in a currency (D34): the price and the quote `amount` was converted at;
    /// `None` when priced in token units.
    pub priced: Option<QuotedPrice>,
    /// The payment link whose visit opened the session (D34).
    pub payment_link: Option<super::PaymentLinkId>,
    /// The session whose lapsed quote this one replaced, at a new quote (D34).
    pub requoted_from: Option<CheckoutSessionId>,
}

impl CheckoutSession {
    /// Whether the session's quote still stands at `now` (always, unless priced across
    /// currencies and past the quote's expiry): no way to pay is offered once it lapsed.
    pub fn quote_live(&self, now: Timestamp) -> bool {
        self.priced.as_ref().is_none_or(|p| p.quote.is_live(now))
    }

    /// Until when money may pay the session: its expiry, or its quote's when that ends
    /// first (D34). Money arriving later is booked, never completing it at a lapsed rate.
    pub fn pays_until(&self) -> Timestamp {
        self.priced
            .as_ref()
            .and_then(|p| p.quote.expires_at)
            .map_or(self.expires_at, |q| q.min(self.expires_at))
    }

    /// The status a reader should see at `now`: an open session past its expiry is expired
    /// (the spec applies expiry lazily on read), unless a paid payment of it waits for the
    /// merchant's review (D33).
    pub fn status_at(&self, now: Timestamp) -> SessionStatus {
        match self.status {
            SessionStatus::Open if self.needs_expiry(now) => SessionStatus::Expired,
            s => s,
        }
    }

    /// The session as a reader sees it at `now` (`status_at`).
    pub fn seen_at(self, now: Timestamp) -> Self {
        Self {
            status: self.status_at(now),
            ..self
        }
    }

    /// Whether `recipient` (the standing of the merchant's wallet at the session's recipient
    /// address, if there is one) takes this session's money: verified, by a live key for a
    /// live session (D25).
    pub fn recipient_takes_money(&self, recipient: Option<super::WalletStanding>) -> bool {
        recipient.is_some_and(|w| w.pays_in(self.mode))
    }

    /// Whether a read at `now` must persist the open → expired transition.
    pub fn needs_expiry(&self, now: Timestamp) -> bool {
        self.status == SessionStatus::Open && now >= self.expires_at && !self.awaiting_review
    }

    /// The hosted payment URL, present only while the session is open.
    pub fn hosted_url(&self, public_base: &str) -> Option<String> {
        (self.status == SessionStatus::Open)
            .then(|| format!("{}/pay/{}", public_base.trim_end_matches('/'), self.id))
    }

    /// Where an agent pays by x402 (D29): an open payment-mode session in a FiatToken (USDC,
    /// EURC) with a deposit address. Whether the relayer can take the payment now is the 402's to say.
    pub fn x402_url(&self, public_base: &str) -> Option<String> {
        (self.status == SessionStatus::Open
            && self.session_mode == SessionMode::Payment
            && self.currency.is_fiat_token()
            && self.deposit_address.is_some())
        .then(|| format!("{}/x402/{}", public_base.trim_end_matches('/'), self.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn session(status: SessionStatus, expires: i64) -> CheckoutSession {
        let at = |s| Timestamp::new(Utc.timestamp_opt(s, 0).unwrap());
        CheckoutSession {
            id: CheckoutSessionId::generate(),
            merchant_id: MerchantId::generate(),
            mode: Mode::Test,
            session_mode: SessionMode::Payment,
            status,
            title: "t".into(),
            description: None,
            amount: Amount::parse("10").unwrap(),
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
            expires_at: at(expires),
            completed_at: None,
            created_at: at(0),
            deposit_address: None,
            amount_received_micros: 0,
            underpayment_tolerance: UnderpaymentTolerance::NONE,
            underpaid_micros: None,
            awaiting_review: false,
            priced: None,
            payment_link: None,
            requoted_from: None,
        }
    }

    #[test]
    fn open_sessions_expire_lazily() {
        let now = Timestamp::new(Utc.timestamp_opt(1000, 0).unwrap());
        assert_eq!(
            session(SessionStatus::Open, 2000).status_at(now),
            SessionStatus::Open
        );
        assert_eq!(
            session(SessionStatus::Open, 1000).status_at(now),
            SessionStatus::Expired
        );
        assert!(session(SessionStatus::Open, 500).needs_expiry(now));
        assert!(!session(SessionStatus::Completed, 500).needs_expiry(now));
        assert_eq!(
            session(SessionStatus::Completed, 500).status_at(now),
            SessionStatus::Completed
        );
    }

    #[test]
    fn a_priced_session_is_paid_until_its_quote_or_its_expiry_whichever_is_first() {
        use crate::model::{FeedPair, Fiat, Price, Quote, QuotedPrice};
        let at = |s| Timestamp::new(Utc.timestamp_opt(s, 0).unwrap());
        let quoted = |expires: Option<i64>| QuotedPrice {
            price: Price {
                amount: Amount::parse("20").unwrap(),
                fiat: Fiat::Eur,
            },
            quote: Quote {
                pair: FeedPair::EurUsd,
                rate_e8: 108_250_000,
                feed: Address::from_bytes([9; 20]),
                round_id: 1,
                updated_at: at(0),
                expires_at: expires.map(at),
            },
        };
        let s = session(SessionStatus::Open, 500);
        assert_eq!(s.pays_until(), at(500));
        let early = CheckoutSession {
            priced: Some(quoted(Some(300))),
            ..s.clone()
        };
        assert_eq!(early.pays_until(), at(300));
        assert!(early.quote_live(at(299)) && !early.quote_live(at(300)));
        let late = CheckoutSession {
            priced: Some(quoted(Some(900))),
            ..s.clone()
        };
        assert_eq!(late.pays_until(), at(500));
        let peg = CheckoutSession {
            priced: Some(quoted(None)),
            ..s
        };
        assert_eq!(peg.pays_until(), at(500));
        assert!(peg.quote_live(at(10_000)));
    }

    #[test]
    fn a_session_awaiting_review_does_not_expire() {
        let now = Timestamp::new(Utc.timestamp_opt(1000, 0).unwrap());
        let held = CheckoutSession {
            awaiting_review: true,
            ..session(SessionStatus::Open, 500)
        };
        assert_eq!(held.status_at(now), SessionStatus::Open);
        assert!(!held.needs_expiry(now));
        let decided = CheckoutSession {
            awaiting_review: false,
            ..held
        };
        assert_eq!(decided.status_at(now), SessionStatus::Expired);
    }

    #[test]
    fn url_only_while_open() {
        let s = session(SessionStatus::Open, 2000);
        assert_eq!(
            s.hosted_url("http://x/"),
            Some(format!("http://x/pay/{}", s.id))
        );
        assert_eq!(
            session(SessionStatus::Expired, 2000).hosted_url("http://x"),
            None
        );
    }
}
