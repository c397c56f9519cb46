//! Screening payers against sanctions lists (D33): what a source answers about an address,
//! and the record kept of every check as the merchant's proof that it checked.

use super::{Address, ChainId, CheckoutSessionId, MerchantId, Mode, SubscriptionId, Timestamp};

/// Where a payer was screened. Before money moves (the service sends it) a payer can be
/// refused; after (the payer sent it) the payment can only be held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreeningPath {
    /// A one-signature (EIP-3009) payment the relayer would send (D23).
    OneSignature,
    /// An x402 payment on `GET /x402/:id` the relayer would send (D29).
    X402,
    /// A merchant's x402 facilitator `verify` or `settle` (D29).
    Facilitator,
    /// A router payment the payer sent.
    Router,
    /// A transfer to a deposit address (D24).
    Deposit,
    /// A subscription charge the keeper would send.
    SubscriptionCharge,
    /// A subscribe the subscriber sent, with its first charge (D19).
    Subscribe,
}

impl ScreeningPath {
    pub const ALL: [ScreeningPath; 7] = [
        ScreeningPath::OneSignature,
        ScreeningPath::X402,
        ScreeningPath::Facilitator,
        ScreeningPath::Router,
        ScreeningPath::Deposit,
        ScreeningPath::SubscriptionCharge,
        ScreeningPath::Subscribe,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ScreeningPath::OneSignature => "one_signature",
            ScreeningPath::X402 => "x402",
            ScreeningPath::Facilitator => "facilitator",
            ScreeningPath::Router => "router",
            ScreeningPath::Deposit => "deposit",
            ScreeningPath::SubscriptionCharge => "subscription_charge",
            ScreeningPath::Subscribe => "subscribe",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Whether the service itself would move the money (and so can refuse before it does).
    pub fn before_money_moves(self) -> bool {
        !matches!(
            self,
            ScreeningPath::Router | ScreeningPath::Deposit | ScreeningPath::Subscribe
        )
    }
}

/// What a source says of an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreeningAnswer {
    Clear,
    /// On `list` (the oracle, or an imported list's name), as `entry` (the list's own
    /// reference for it, when it has one).
    Listed {
        list: String,
        entry: Option<String>,
    },
    /// The source could not answer (an RPC error, a timeout): never a verdict (D17).
    Unknown,
}

impl ScreeningAnswer {
    pub fn as_str(&self) -> &'static str {
        match self {
            ScreeningAnswer::Clear => "clear",
            ScreeningAnswer::Listed { .. } => "listed",
            ScreeningAnswer::Unknown => "unknown",
        }
    }
}

/// Which source answered, as the proof names it: `chainalysis_oracle` (at its contract),
/// or an imported list by name with the version the lookup read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreeningSource {
    pub name: String,
    /// The imported list's version (its import number); `None` for the oracle.
    pub version: Option<i64>,
}

/// One source's answer about one address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceAnswer {
    pub source: ScreeningSource,
    pub answer: ScreeningAnswer,
}

/// What a payer was screened for: a checkout session's payment, or a subscription's charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreeningSubject {
    Session(CheckoutSessionId),
    Subscription(SubscriptionId),
}

/// Whose payment a check was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenedPayer {
    pub merchant_id: MerchantId,
    pub mode: Mode,
    pub chain: ChainId,
    pub address: Address,
    pub subject: ScreeningSubject,
}

/// A stored check: one source's answer about one payer, on one path, at one time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreeningCheck {
    pub payer: ScreenedPayer,
    pub path: ScreeningPath,
    pub source: ScreeningSource,
    pub answer: ScreeningAnswer,
    pub checked_at: Timestamp,
}
