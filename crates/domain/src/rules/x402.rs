//! x402 protocol v2 (D29) as the official SDKs speak it: the shapes carried (base64 JSON)
//! in `PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE` and `PAYMENT-RESPONSE` and by a
//! facilitator's `/verify` and `/settle`, what a session asks for, and the checks of an
//! "exact" EIP-3009 payment against it. Pure: the chain's answers (balance, nonce, a
//! simulation) are the use case's.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};

use crate::model::{
    Address, ChainId, CheckoutSession, SessionMode, SessionStatus, Signature, Timestamp,
};
use crate::rules::eip3009::{TokenDomain, TransferAuthorization};

pub const VERSION: u64 = 2;
pub const SCHEME: &str = "exact";
/// The longest an authorization is asked to stay valid (`maxTimeoutSeconds`), and never
/// past the session's expiry.
pub const MAX_TIMEOUT_SECS: u64 = 600;
/// A session with less life left offers no x402 payment: the relayer needs time to land it.
pub const MIN_TIMEOUT_SECS: u64 = 30;
/// An authorization must stay valid at least this long after it arrives (a few blocks).
pub const MIN_VALIDITY_SECS: u64 = 12;
/// How far past `now + maxTimeoutSeconds` a `validBefore` may reach (the payer's clock
/// ahead of ours). Never more: a relay that can be mined later blocks the session's other
/// payers that much longer.
pub const CLOCK_SKEW_SECS: u64 = 60;

/// `eip155:<chain id>` (CAIP-2), as x402 names networks.
pub fn network(chain: ChainId) -> String {
    format!("eip155:{}", chain.id())
}

/// One way to pay (`accepts[]`, and a payment's `accepted`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = X402PaymentRequirements)]
#[serde(rename_all = "camelCase")]
pub struct Requirements {
    pub scheme: String,
    pub network: String,
    /// Token base units, as a decimal string.
    pub amount: String,
    pub asset: String,
    pub pay_to: String,
    #[serde(deserialize_with = "json_integer")]
    pub max_timeout_seconds: u64,
    /// The token's EIP-712 `name` and `version`, which the payer signs under.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub extra: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInfo {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// The `PAYMENT-REQUIRED` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRequired {
    pub x402_version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub resource: ResourceInfo,
    pub accepts: Vec<Requirements>,
}

/// The `PAYMENT-SIGNATURE` document (and a facilitator request's `paymentPayload`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = X402PaymentPayload)]
#[serde(rename_all = "camelCase")]
pub struct PaymentPayload {
    #[serde(deserialize_with = "json_integer")]
    pub x402_version: u64,
    pub payload: ExactPayload,
    pub accepted: Requirements,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub resource: Option<serde_json::Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub extensions: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = X402ExactPayload)]
pub struct ExactPayload {
    pub signature: String,
    pub authorization: AuthorizationFields,
}

/// An EIP-3009 authorization as sent: every field a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[schema(as = X402Authorization)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationFields {
    pub from: String,
    pub to: String,
    pub value: String,
    pub valid_after: String,
    pub valid_before: String,
    pub nonce: String,
}

/// A facilitator's `/verify` or `/settle` request.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = X402FacilitatorRequest)]
pub struct FacilitatorRequest {
    /// 2 (x402 protocol v2).
    #[schema(minimum = 2, maximum = 2)]
    #[serde(deserialize_with = "json_integer")]
    pub x402_version: u64,
    pub payment_payload: PaymentPayload,
    pub payment_requirements: Requirements,
}

/// `PAYMENT-RESPONSE` and a facilitator's `/settle` answer. `transaction` and `network`
/// are required by the SDKs even on failure; absent values are written as `null`, which
/// the SDKs read as absent.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = X402SettleResponse)]
#[serde(rename_all = "camelCase")]
pub struct SettleResponse {
    pub success: bool,
    pub error_reason: Option<String>,
    pub payer: Option<String>,
    pub transaction: String,
    pub network: String,
}

/// A facilitator's `/verify` answer.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = X402VerifyResponse)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResponse {
    pub is_valid: bool,
    pub invalid_reason: Option<String>,
    pub payer: Option<String>,
}

/// A JSON Schema "integer" (`5`, or `5.0` as some encoders write it) from 0 to
/// `i64::MAX`, as the document's `int64` says; anything else is a malformed request.
fn json_integer<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    n.as_u64()
        .filter(|v| i64::try_from(*v).is_ok())
        .or_else(|| n.as_f64().and_then(integral))
        .ok_or_else(|| {
            serde::de::Error::custom("must be a whole number from 0 to 9223372036854775807")
        })
}

/// The whole number a JSON float such as `2045037038116383.0` stands for. serde_json's
/// default parser reads floats to within an ulp, so above 2^32 (where a fraction such as
/// `.5` is still many ulps) a float one ulp from a whole number is that number.
fn integral(f: f64) -> Option<u64> {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    const EXACT_BELOW: f64 = 4_294_967_296.0; // 2^32
    let whole = f.round();
    let close = if f.abs() < EXACT_BELOW {
        f == whole
    } else {
        (f - whole).abs() <= f.abs() * f64::EPSILON
    };
    (close && (0.0..LIMIT).contains(&whole)).then_some(whole as u64)
}

/// Why a session offers no x402 payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotOffered {
    NotOpen,
    NotPaymentMode,
    /// The session's token moves by no signed authorization (USDT).
    NotFiatToken,
    /// The session is priced in a currency and its quote lapsed (D34).
    QuoteExpired,
    NoDepositAddress,
    TooLittleTime,
    /// Money that covers the gross already arrived at (or is on its way to) the deposit
    /// address, so nobody pays twice. A short deposit (dust, a partial transfer) leaves
    /// x402 offered: what it adds is booked as an overpayment.
    BeingPaid,
}

impl NotOffered {
    pub fn reason(self) -> &'static str {
        match self {
            NotOffered::NotOpen => "session_not_open",
            NotOffered::NotPaymentMode => "session_not_payment_mode",
            NotOffered::NotFiatToken => "unsupported_asset",
            NotOffered::QuoteExpired => "quote_expired",
            NotOffered::NoDepositAddress => "unsupported_network",
            NotOffered::TooLittleTime => "session_expiring",
            NotOffered::BeingPaid => "session_being_paid",
        }
    }
}

/// What `session` asks an x402 payer for at `now`: its gross, to its deposit address, in
/// its token under `domain`, valid for at most the session's remaining life.
pub fn requirements(
    session: &CheckoutSession,
    domain: &TokenDomain,
    now: Timestamp,
) -> Result<Requirements, NotOffered> {
    if session.status_at(now) != SessionStatus::Open {
        return Err(NotOffered::NotOpen);
    }
    if session.session_mode != SessionMode::Payment {
        return Err(NotOffered::NotPaymentMode);
    }
    if !session.currency.is_fiat_token() {
        return Err(NotOffered::NotFiatToken);
    }
    if !session.quote_live(now) {
        return Err(NotOffered::QuoteExpired);
    }
    let pay_to = session
        .deposit_address
        .ok_or(NotOffered::NoDepositAddress)?;
    if session.amount_received_micros >= session.amount.micros() {
        return Err(NotOffered::BeingPaid);
    }
    // Never valid past the quote's end either (D34): a signed transfer is sendable by anyone.
    let remaining =
        u64::try_from(session.pays_until().unix_seconds() - now.unix_seconds()).unwrap_or(0);
    if remaining < MIN_TIMEOUT_SECS {
        return Err(NotOffered::TooLittleTime);
    }
    Ok(Requirements {
        scheme: SCHEME.into(),
        network: network(session.chain),
        amount: session.amount.micros().to_string(),
        asset: session.token_address.to_string(),
        pay_to: pay_to.to_string(),
        max_timeout_seconds: remaining.min(MAX_TIMEOUT_SECS),
        extra: serde_json::Map::from_iter([
            ("name".to_owned(), json!(domain.name)),
            ("version".to_owned(), json!(domain.version)),
        ]),
    })
}

/// Why a payment is refused, with x402's reason codes (the SDK's `ERR_*` values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    Version,
    Scheme,
    Network,
    Asset,
    Recipient,
    Value,
    ValidAfter,
    ValidBefore,
    Signature,
    Malformed(&'static str),
    InsufficientBalance,
    NonceUsed,
    Simulation(String),
}

impl Invalid {
    pub fn reason(&self) -> &'static str {
        match self {
            Invalid::Version => "invalid_x402_version",
            Invalid::Scheme => "unsupported_scheme",
            Invalid::Network => "network_mismatch",
            Invalid::Asset => "invalid_exact_evm_payload_asset_mismatch",
            Invalid::Recipient => "invalid_exact_evm_payload_recipient_mismatch",
            Invalid::Value => "invalid_exact_evm_payload_authorization_value_mismatch",
            Invalid::ValidAfter => "invalid_exact_evm_payload_authorization_valid_after",
            Invalid::ValidBefore => "invalid_exact_evm_payload_authorization_valid_before",
            Invalid::Signature => "invalid_exact_evm_payload_signature",
            Invalid::Malformed(_) => "invalid_payload",
            Invalid::InsufficientBalance => "invalid_exact_evm_insufficient_balance",
            Invalid::NonceUsed => "invalid_exact_evm_nonce_already_used",
            Invalid::Simulation(_) => "invalid_exact_evm_transaction_simulation_failed",
        }
    }
}

/// A payment that matches what was asked, as the token will check it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPayment {
    pub authorization: TransferAuthorization,
    /// v = 27/28, as the token checks it.
    pub signature: Signature,
    /// Whether the signature recovers to `from`. When it does not, only a contract payer
    /// (ERC-1271, which FiatToken v2.2 accepts) can still be valid: the caller asks the
    /// chain.
    pub signed_by_eoa: bool,
}

/// Checks `payment` against `asked` (what the session asks now) at `now`: version, scheme,
/// network, asset, recipient, exact amount, validity window and signature. Balance, nonce
/// and a simulation are the chain's to answer.
pub fn check_payment(
    payment: &PaymentPayload,
    asked: &Requirements,
    domain: &TokenDomain,
    now: Timestamp,
) -> Result<CheckedPayment, Invalid> {
    if payment.x402_version != VERSION {
        return Err(Invalid::Version);
    }
    let accepted = &payment.accepted;
    if accepted.scheme != SCHEME {
        return Err(Invalid::Scheme);
    }
    if accepted.network != asked.network {
        return Err(Invalid::Network);
    }
    let address = |s: &str, what: &'static str| {
        Address::parse(&s.to_lowercase()).map_err(|_| Invalid::Malformed(what))
    };
    if address(&accepted.asset, "accepted.asset")? != domain.token {
        return Err(Invalid::Asset);
    }
    let a = &payment.payload.authorization;
    let pay_to = address(&asked.pay_to, "payTo")?;
    let to = address(&a.to, "authorization.to")?;
    if to != pay_to || address(&accepted.pay_to, "accepted.payTo")? != pay_to {
        return Err(Invalid::Recipient);
    }
    let number = |s: &str, what: &'static str| -> Result<u128, Invalid> {
        s.parse::<u128>().map_err(|_| Invalid::Malformed(what))
    };
    let seconds = |s: &str, what: &'static str| -> Result<u64, Invalid> {
        number(s, what).map(|n| u64::try_from(n).unwrap_or(u64::MAX))
    };
    let value = number(&a.value, "authorization.value")?;
    if value.to_string() != asked.amount || accepted.amount != asked.amount {
        return Err(Invalid::Value);
    }
    let valid_after = seconds(&a.valid_after, "authorization.validAfter")?;
    let valid_before = seconds(&a.valid_before, "authorization.validBefore")?;
    let now_secs = u64::try_from(now.unix_seconds()).unwrap_or(0);
    if valid_after > now_secs {
        return Err(Invalid::ValidAfter);
    }
    let latest = now_secs
        .saturating_add(asked.max_timeout_seconds)
        .saturating_add(CLOCK_SKEW_SECS);
    if valid_before < now_secs.saturating_add(MIN_VALIDITY_SECS) || valid_before > latest {
        return Err(Invalid::ValidBefore);
    }
    let nonce = hex::decode(a.nonce.trim_start_matches("0x"))
        .ok()
        .and_then(|n| <[u8; 32]>::try_from(n).ok())
        .ok_or(Invalid::Malformed("authorization.nonce"))?;
    let signature = Signature::parse(&payment.payload.signature)
        .map_err(|_| Invalid::Malformed("signature"))?;
    let authorization = TransferAuthorization {
        from: address(&a.from, "authorization.from")?,
        to,
        value,
        valid_after,
        valid_before,
        nonce,
    };
    let signed_by_eoa = authorization.signed_by_payer(domain, &signature);
    // v = 0/1 → 27/28 is an EOA signature's normal form; a contract wallet's (ERC-1271)
    // bytes are its own and go to the token as they came.
    let signature = if signed_by_eoa {
        crate::rules::eip3009::on_chain_signature(&signature)
    } else {
        signature
    };
    Ok(CheckedPayment {
        authorization,
        signature,
        signed_by_eoa,
    })
}

/// Every term a payment signs, and its signature, as one digest
/// ([`crate::ports::TransferPayment::terms`]): two payloads are "the same payment" only when
/// all of them are equal, never by `from` and `nonce` alone (a forged copy shares those).
/// `None` when a field does not parse (such a payload was never relayed).
pub fn payload_terms(payment: &PaymentPayload) -> Option<[u8; 32]> {
    let a = &payment.payload.authorization;
    let address = |s: &str| Address::parse(&s.to_lowercase()).ok();
    let seconds = |s: &str| s.parse::<u64>().ok();
    let authorization = TransferAuthorization {
        from: address(&a.from)?,
        to: address(&a.to)?,
        value: a.value.parse::<u128>().ok()?,
        valid_after: seconds(&a.valid_after)?,
        valid_before: seconds(&a.valid_before)?,
        nonce: hex::decode(a.nonce.trim_start_matches("0x"))
            .ok()
            .and_then(|n| <[u8; 32]>::try_from(n).ok())?,
    };
    let signature = Signature::parse(&payment.payload.signature).ok()?;
    Some(crate::ports::TransferPayment::terms_of(
        &authorization,
        &signature,
    ))
}

mod client;
#[cfg(test)]
mod tests;
