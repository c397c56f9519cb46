//! The parts of a checkout-session request that are checked once, at the edge, and then
//! carried as types: a title, a customer reference, a redirect URL, the metadata object,
//! a plan id, and the mode's terms (an amount for a payment, a plan for a subscription).

use std::fmt;

use super::{Amount, Mode, Price, SessionMode, ValidationErrors};
use crate::rules::validation::{
    bounded_text, redirect_url, TextError, UrlError, CUSTOMER_REFERENCE_MAX, TITLE_MAX,
};

/// 1–120 characters, not blank, no control characters but `\n\t\r`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title(String);

impl Title {
    pub fn parse(s: &str) -> Result<Self, TextError> {
        bounded_text(s, 1, TITLE_MAX).map(Self)
    }
}

/// 1–250 characters, not blank; the merchant's own reference for the buyer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerReference(String);

impl CustomerReference {
    pub fn parse(s: &str) -> Result<Self, TextError> {
        bounded_text(s, 1, CUSTOMER_REFERENCE_MAX).map(Self)
    }
}

/// Where the buyer is sent after paying or cancelling: absolute http(s), ≤ 2000 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectUrl(String);

impl RedirectUrl {
    pub fn parse(s: &str) -> Result<Self, UrlError> {
        redirect_url(s).map(Self)
    }
}

/// The session's `metadata`: the text of a JSON object, echoed verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataJson(String);

impl MetadataJson {
    /// `{}`: what an absent or `null` metadata means.
    pub fn empty() -> Self {
        Self("{}".to_owned())
    }

    /// From already-valid JSON text (a request body's raw value): an object, or `null`
    /// for none; anything else is refused.
    pub fn from_json_text(raw: &str) -> Result<Self, &'static str> {
        match raw.trim() {
            "null" => Ok(Self::empty()),
            t if t.starts_with('{') => Ok(Self(raw.to_owned())),
            _ => Err("must be a JSON object"),
        }
    }
}

/// The checked text, for the stored session (owned) or a filter (borrowed).
macro_rules! text_newtype {
    ($($name:ident),*) => {$(
        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    )*};
}

text_newtype!(Title, CustomerReference, RedirectUrl, MetadataJson);

/// `underpayment_tolerance_bps` (D32): how far short of its amount, in basis points of it,
/// a deposit may fall and still complete its session; 0 to 1000 (10 %).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnderpaymentTolerance(u16);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer from 0 to 1000 (basis points of the amount: 50 is 0.5 %)")]
pub struct ToleranceError;

impl UnderpaymentTolerance {
    pub const NONE: Self = Self(0);
    pub const MAX_BPS: u16 = 1000;

    pub fn from_bps(bps: u16) -> Option<Self> {
        (bps <= Self::MAX_BPS).then_some(Self(bps))
    }

    /// A JSON integer from 0 to 1000.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, ToleranceError> {
        value
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .and_then(Self::from_bps)
            .ok_or(ToleranceError)
    }

    pub fn bps(self) -> u16 {
        self.0
    }

    /// The least that completes a session of `gross`: `gross` less
    /// floor(`gross` × bps / 10,000), so the shortfall accepted never exceeds the rate.
    pub fn minimum_of(self, gross: u64) -> u64 {
        // gross × 1000 fits in u128 for any u64.
        let allowed = u128::from(gross) * u128::from(self.0) / 10_000;
        gross - allowed as u64
    }
}

/// A plan on the SubscriptionManager contract: a uint256 counter on chain, here any
/// number in 1..=2^128−1 (counters never get near that).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChainPlanId(u128);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanIdError {
    #[error("must be a plan id: a positive integer (string or number)")]
    NotAnInteger,
    #[error("{0} is not a plan id (1 to 2^128-1)")]
    OutOfRange(String),
}

impl ChainPlanId {
    /// Decimal digits, as a string in JSON or a form.
    pub fn parse(raw: &str) -> Result<Self, PlanIdError> {
        let digits = raw.trim();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PlanIdError::NotAnInteger);
        }
        match digits.parse::<u128>() {
            Ok(0) | Err(_) => Err(PlanIdError::OutOfRange(digits.to_owned())),
            Ok(id) => Ok(Self(id)),
        }
    }

    /// A JSON string of digits or a JSON integer.
    pub fn from_json(value: &serde_json::Value) -> Result<Self, PlanIdError> {
        match value {
            serde_json::Value::String(s) => Self::parse(s),
            serde_json::Value::Number(n) => match n.as_u64() {
                Some(0) => Err(PlanIdError::OutOfRange("0".to_owned())),
                Some(id) => Ok(Self(u128::from(id))),
                None => Err(PlanIdError::NotAnInteger),
            },
            _ => Err(PlanIdError::NotAnInteger),
        }
    }

    pub fn from_u128(id: u128) -> Option<Self> {
        (id > 0).then_some(Self(id))
    }

    pub fn get(self) -> u128 {
        self.0
    }
}

impl fmt::Display for ChainPlanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What the session sells: a one-time amount, a one-time price in a currency (D34), or a
/// plan whose terms are read from the chain (an amount or interval given alongside is a
/// cross-check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionTerms {
    Payment {
        amount: Amount,
    },
    /// A payment priced in USD or EUR: its token amount is quoted when it is created.
    PricedPayment {
        price: Price,
    },
    Subscription {
        plan: ChainPlanId,
        amount: Option<Amount>,
        interval_seconds: Option<u64>,
        /// The plan's price in a currency, for display (D34): checked against the plan's
        /// amount at the rate now, never what is charged.
        price: Option<Price>,
    },
}

impl SessionTerms {
    /// The mode's rules over the mode-specific fields, for a key of `key_mode`; every
    /// broken rule is pushed onto `errors`. A field already reported there (it did not
    /// parse) is not reported again.
    pub fn collect(
        mode: SessionMode,
        key_mode: Mode,
        amount: Option<Amount>,
        price: Option<Price>,
        plan: Option<ChainPlanId>,
        interval_seconds: Option<u64>,
        errors: &mut ValidationErrors,
    ) -> Option<Self> {
        match mode {
            SessionMode::Payment => {
                if amount.is_none()
                    && price.is_none()
                    && !errors.has("amount")
                    && !errors.has("price")
                {
                    errors.push(
                        "amount",
                        "is required in payment mode (or `price`, in a currency)",
                    );
                }
                if amount.is_some() && price.is_some() {
                    errors.push(
                        "price",
                        "give either `amount` (in the token) or `price` (in a currency), not both",
                    );
                }
                if plan.is_some() {
                    errors.push("chain_plan_id", "is only valid in subscription mode");
                }
                if interval_seconds.is_some() {
                    errors.push("interval_seconds", "is only valid in subscription mode");
                }
                match (amount, price, plan, interval_seconds) {
                    (Some(amount), None, None, None) => Some(Self::Payment { amount }),
                    (None, Some(price), None, None) => Some(Self::PricedPayment { price }),
                    _ => None,
                }
            }
            // Subscriptions are charged by the keeper on the live chain only: with a test
            // key nothing else about the request matters yet.
            SessionMode::Subscription if !key_mode.is_live() => {
                errors.push("mode", "subscription mode is available with live keys only");
                None
            }
            SessionMode::Subscription => {
                if plan.is_none() && !errors.has("chain_plan_id") {
                    errors.push("chain_plan_id", "is required in subscription mode");
                }
                plan.map(|plan| Self::Subscription {
                    plan,
                    amount,
                    interval_seconds,
                    price,
                })
            }
        }
    }

    pub fn mode(&self) -> SessionMode {
        match self {
            Self::Payment { .. } | Self::PricedPayment { .. } => SessionMode::Payment,
            Self::Subscription { .. } => SessionMode::Subscription,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(e: &ValidationErrors) -> Vec<&str> {
        e.0.iter().map(|f| f.field.as_str()).collect()
    }

    #[test]
    fn payment_mode_needs_an_amount_and_refuses_plan_fields() {
        let mut e = ValidationErrors::default();
        let plan = ChainPlanId::parse("1").ok();
        let terms = SessionTerms::collect(
            SessionMode::Payment,
            Mode::Live,
            None,
            None,
            plan,
            Some(60),
            &mut e,
        );
        assert_eq!(terms, None);
        assert_eq!(fields(&e), ["amount", "chain_plan_id", "interval_seconds"]);
    }

    #[test]
    fn an_amount_that_did_not_parse_is_reported_once() {
        let mut e = ValidationErrors::default();
        e.push("amount", "must be a decimal string");
        assert_eq!(
            SessionTerms::collect(
                SessionMode::Payment,
                Mode::Test,
                None,
                None,
                None,
                None,
                &mut e
            ),
            None
        );
        assert_eq!(fields(&e), ["amount"]);
    }

    #[test]
    fn a_payment_is_priced_by_amount_or_by_price_never_both() {
        use crate::model::Fiat;
        let price = Price {
            amount: Amount::parse("20").unwrap(),
            fiat: Fiat::Eur,
        };
        let mut e = ValidationErrors::default();
        let terms = SessionTerms::collect(
            SessionMode::Payment,
            Mode::Test,
            None,
            Some(price),
            None,
            None,
            &mut e,
        );
        assert_eq!(terms, Some(SessionTerms::PricedPayment { price }));
        assert!(e.is_empty());
        let both = SessionTerms::collect(
            SessionMode::Payment,
            Mode::Test,
            Amount::parse("1").ok(),
            Some(price),
            None,
            None,
            &mut e,
        );
        assert_eq!((both, fields(&e)), (None, vec!["price"]));
        let mut e = ValidationErrors::default();
        let plan = ChainPlanId::parse("1").ok();
        let sub = SessionTerms::collect(
            SessionMode::Subscription,
            Mode::Live,
            None,
            Some(price),
            plan,
            None,
            &mut e,
        );
        // In subscription mode a price is the plan's display price (checked against the
        // plan when the session is made).
        assert_eq!(
            (sub, fields(&e)),
            (
                Some(SessionTerms::Subscription {
                    plan: plan.unwrap(),
                    amount: None,
                    interval_seconds: None,
                    price: Some(price)
                }),
                vec![]
            )
        );
    }

    #[test]
    fn subscription_mode_needs_a_plan() {
        let mut e = ValidationErrors::default();
        let amount = Amount::parse("10").ok();
        assert_eq!(
            SessionTerms::collect(
                SessionMode::Subscription,
                Mode::Live,
                amount,
                None,
                None,
                None,
                &mut e
            ),
            None
        );
        assert_eq!(fields(&e), ["chain_plan_id"]);
        let mut e = ValidationErrors::default();
        let plan = ChainPlanId::parse("7").ok();
        let terms = SessionTerms::collect(
            SessionMode::Subscription,
            Mode::Live,
            amount,
            None,
            plan,
            Some(60),
            &mut e,
        );
        assert!(e.is_empty());
        assert_eq!(terms.map(|t| t.mode()), Some(SessionMode::Subscription));
    }

    #[test]
    fn subscription_mode_is_refused_with_a_test_key() {
        let mut e = ValidationErrors::default();
        let plan = ChainPlanId::parse("7").ok();
        let terms = SessionTerms::collect(
            SessionMode::Subscription,
            Mode::Test,
            None,
            None,
            plan,
            None,
            &mut e,
        );
        assert_eq!(terms, None);
        assert_eq!(fields(&e), ["mode"]);
        let mut e = ValidationErrors::default();
        SessionTerms::collect(
            SessionMode::Subscription,
            Mode::Test,
            None,
            None,
            None,
            None,
            &mut e,
        );
        assert_eq!(fields(&e), ["mode"], "only the key's mode is reported");
    }

    #[test]
    fn plan_ids_are_positive_integers_below_2_pow_128() {
        assert_eq!(ChainPlanId::parse(" 7 ").map(ChainPlanId::get), Ok(7));
        assert_eq!(
            ChainPlanId::from_json(&serde_json::json!(42)).map(ChainPlanId::get),
            Ok(42)
        );
        assert_eq!(ChainPlanId::parse("x1"), Err(PlanIdError::NotAnInteger));
        assert_eq!(ChainPlanId::parse(""), Err(PlanIdError::NotAnInteger));
        assert_eq!(
            ChainPlanId::from_json(&serde_json::json!(-1)),
            Err(PlanIdError::NotAnInteger)
        );
        assert!(matches!(
            ChainPlanId::parse("0"),
            Err(PlanIdError::OutOfRange(_))
        ));
        let max = u128::MAX.to_string();
        assert_eq!(
            ChainPlanId::parse(&max).map(ChainPlanId::get),
            Ok(u128::MAX)
        );
        assert!(matches!(
            ChainPlanId::parse(&format!("{max}0")),
            Err(PlanIdError::OutOfRange(_))
        ));
    }

    #[test]
    fn metadata_is_an_object_or_nothing() {
        assert_eq!(
            MetadataJson::from_json_text("null"),
            Ok(MetadataJson::empty())
        );
        assert_eq!(
            MetadataJson::from_json_text(r#"{"a":1}"#).map(String::from),
            Ok(r#"{"a":1}"#.to_owned())
        );
        assert!(MetadataJson::from_json_text("[1]").is_err());
        assert!(MetadataJson::from_json_text("\"x\"").is_err());
    }
}
