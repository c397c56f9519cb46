//! Modes, chains and currencies.

use std::fmt;

/// The key's mode: it scopes every request and every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Test,
    Live,
}

impl Mode {
    pub fn is_live(self) -> bool {
        matches!(self, Mode::Live)
    }

    pub fn from_livemode(livemode: bool) -> Self {
        if livemode {
            Mode::Live
        } else {
            Mode::Test
        }
    }

    /// Test keys operate on Base Sepolia, live keys on Base mainnet.
    pub fn chain(self) -> ChainId {
        match self {
            Mode::Test => ChainId::BaseSepolia,
            Mode::Live => ChainId::Base,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Test => "test",
            Mode::Live => "live",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "test" => Some(Mode::Test),
            "live" => Some(Mode::Live),
            _ => None,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The two supported networks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChainId {
    Base,
    BaseSepolia,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be 8453 or \"base\" (live), or 84532 or \"base-sepolia\" (test)")]
pub struct ChainSelectorError;

impl ChainId {
    pub const ALL: [ChainId; 2] = [ChainId::Base, ChainId::BaseSepolia];

    pub fn id(self) -> u64 {
        match self {
            ChainId::Base => 8453,
            ChainId::BaseSepolia => 84532,
        }
    }

    pub fn from_id(id: u64) -> Option<Self> {
        match id {
            8453 => Some(ChainId::Base),
            84532 => Some(ChainId::BaseSepolia),
            _ => None,
        }
    }

    /// The spec's chain cross-check accepts the numeric id or the network's name.
    pub fn parse_selector(value: &serde_json::Value) -> Result<Self, ChainSelectorError> {
        match value {
            serde_json::Value::Number(n) => {
                n.as_u64().and_then(Self::from_id).ok_or(ChainSelectorError)
            }
            serde_json::Value::String(s) => match s.as_str() {
                "base" | "8453" => Ok(ChainId::Base),
                "base-sepolia" | "84532" => Ok(ChainId::BaseSepolia),
                _ => Err(ChainSelectorError),
            },
            _ => Err(ChainSelectorError),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ChainId::Base => "base",
            ChainId::BaseSepolia => "base-sepolia",
        }
    }

    /// The network's name for people: "Base" or "Base Sepolia".
    pub fn display_name(self) -> &'static str {
        match self {
            ChainId::Base => "Base",
            ChainId::BaseSepolia => "Base Sepolia",
        }
    }

    pub fn mode(self) -> Mode {
        match self {
            ChainId::Base => Mode::Live,
            ChainId::BaseSepolia => Mode::Test,
        }
    }
}

impl serde::Serialize for ChainId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.id())
    }
}

impl utoipa::PartialSchema for ChainId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::representation::schema::integer_enum(
            &[ChainId::Base.id(), ChainId::BaseSepolia.id()],
            "8453 (Base, live mode) or 84532 (Base Sepolia, test mode).",
        )
    }
}

impl utoipa::ToSchema for ChainId {}

/// Settlement currencies (tokens, all with 6 decimals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, utoipa::ToSchema)]
pub enum Currency {
    #[serde(rename = "USDC")]
    Usdc,
    #[serde(rename = "USDT")]
    Usdt,
    /// Circle's euro coin (D34): a FiatToken like USDC, pegged to the euro.
    #[serde(rename = "EURC")]
    Eurc,
}

/// The money a token is pegged to, and a price may be given in (D34): amounts in
/// different ones are never added up.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, utoipa::ToSchema,
)]
pub enum Fiat {
    #[serde(rename = "USD")]
    Usd,
    #[serde(rename = "EUR")]
    Eur,
}

impl Fiat {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "USD" => Some(Fiat::Usd),
            "EUR" => Some(Fiat::Eur),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Fiat::Usd => "USD",
            Fiat::Eur => "EUR",
        }
    }
}

impl Currency {
    /// Every token, in the order pages list them.
    pub const ALL: [Currency; 3] = [Currency::Usdc, Currency::Usdt, Currency::Eurc];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "USDC" => Some(Currency::Usdc),
            "USDT" => Some(Currency::Usdt),
            "EURC" => Some(Currency::Eurc),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Currency::Usdc => "USDC",
            Currency::Usdt => "USDT",
            Currency::Eurc => "EURC",
        }
    }

    /// The money the token is pegged to.
    pub fn fiat(self) -> Fiat {
        match self {
            Currency::Usdc | Currency::Usdt => Fiat::Usd,
            Currency::Eurc => Fiat::Eur,
        }
    }

    /// The token a request names none of is paid in: EURC for a price in euros, else USDC.
    pub fn default_for(price: Option<Fiat>) -> Self {
        match price {
            Some(Fiat::Eur) => Currency::Eurc,
            _ => Currency::Usdc,
        }
    }

    /// Whether the token is Circle's FiatToken (USDC, EURC), which moves by a signed
    /// EIP-3009 authorization: x402 asks for nothing else. Base's bridged USDT does not.
    pub fn is_fiat_token(self) -> bool {
        matches!(self, Currency::Usdc | Currency::Eurc)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chain_selector_accepts_ids_and_names() {
        assert_eq!(ChainId::parse_selector(&json!(8453)), Ok(ChainId::Base));
        assert_eq!(ChainId::parse_selector(&json!("base")), Ok(ChainId::Base));
        assert_eq!(
            ChainId::parse_selector(&json!(84532)),
            Ok(ChainId::BaseSepolia)
        );
        assert_eq!(
            ChainId::parse_selector(&json!("base-sepolia")),
            Ok(ChainId::BaseSepolia)
        );
        for bad in [
            json!(1),
            json!("ethereum"),
            json!(8453.5),
            json!(null),
            json!(true),
            json!(-8453),
        ] {
            assert!(ChainId::parse_selector(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn currencies_read_back_and_know_their_peg() {
        for c in Currency::ALL {
            assert_eq!(Currency::parse(c.as_str()), Some(c));
        }
        assert_eq!(Currency::parse("usdc"), None);
        assert_eq!(Currency::Eurc.fiat(), Fiat::Eur);
        assert_eq!(Currency::Usdt.fiat(), Fiat::Usd);
        assert!(Currency::Eurc.is_fiat_token() && !Currency::Usdt.is_fiat_token());
    }

    #[test]
    fn modes_map_to_their_chain() {
        assert_eq!(Mode::Test.chain().id(), 84532);
        assert_eq!(Mode::Live.chain().id(), 8453);
        assert_eq!(ChainId::Base.mode(), Mode::Live);
    }
}
