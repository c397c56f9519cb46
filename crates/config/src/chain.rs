//! Chain settings: RPC endpoints, contracts, depths, intent and plan rules, dunning, and
//! the one signing key the process's role needs.

use std::time::Duration;

use stablepay_domain::deployment::{ChainContracts, ChainDirectory, PriceFeeds, TokenDirectory};
use stablepay_domain::rules::dunning::DunningPolicy;
use stablepay_domain::rules::relay_budget::RevertBudget;
use stablepay_domain::services::DEFAULT_INTENT_TTL_SECS;
use stablepay_domain::{Address, ChainId, Currency, PrivateKey};

/// Real Base USDC deployments (DESIGN §4). USDT has no default: it stays off unless
/// an operator configures its address.
const USDC_BASE: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const USDC_BASE_SEPOLIA: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
/// Circle's EURC (D34), from https://developers.circle.com/stablecoins/eurc-contract-addresses
/// (Base mainnet and Base Sepolia testnet).
const EURC_BASE: &str = "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42";
const EURC_BASE_SEPOLIA: &str = "0x808456652fdb597867f38412077A9182bf77359F";

use crate::env::{optional as var, ConfigError};

/// Which signing key a process holds: the api signs payment intents (operator), the
/// worker charges subscriptions (keeper). Neither reads the other's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRole {
    Operator,
    Keeper,
}

/// Everything chain-related a process needs.
pub struct ChainEnv {
    /// Each chain's `STABLEPAY_RPC_URL_<chain>`: one http(s) URL or a comma-separated list.
    pub rpc_urls: Vec<(ChainId, String)>,
    pub contracts: ChainDirectory,
    /// The role's key (`STABLEPAY_OPERATOR_KEY` signs EIP-712 intents, which the
    /// contracts trust; `STABLEPAY_KEEPER_KEY` sends charges). In a `secrecy` box.
    pub signing_key: Option<PrivateKey>,
    pub rpc_timeout: Duration,
    /// How long a signed payment intent stays valid (D18).
    pub intent_ttl: Duration,
    /// Plans billing more often than this are refused (D19: `STABLEPAY_PLAN_MIN_INTERVAL`).
    pub plan_min_interval: Duration,
    /// Retry delays after a failed recurring charge (D10: `STABLEPAY_DUNNING_DELAYS`).
    pub dunning: DunningPolicy,
    /// The relayer (D23, D26), when `STABLEPAY_RELAYER_KEY` is set (it may be the keeper's
    /// key: they share nonces): the api relays one-signature payments with it and the
    /// worker sweeps deposit addresses with it (with the keeper key when it is unset).
    pub relayer: Option<RelayerSettings>,
    /// Which token settles each currency on each chain (`STABLEPAY_TOKEN_<CUR>_<chain>`).
    pub tokens: TokenDirectory,
    /// The price feeds that quote prices in a currency, and how (D34).
    pub price_feeds: PriceFeeds,
    /// `STABLEPAY_KEEPER_MIN_BALANCE_WEI` (default 0.001 ETH): under it the keeper sends
    /// no new charge (a stuck one is still replaced).
    pub keeper_min_balance_wei: u128,
    /// The most the service's own transactions pay per gas, in wei, on the chains that set
    /// `STABLEPAY_MAX_FEE_GWEI_<chain>` (D26; the others use the sender's default).
    pub max_fee_wei: Vec<(ChainId, u128)>,
}

/// `STABLEPAY_RELAYER_KEY` and `STABLEPAY_RELAYER_MIN_BALANCE_WEI` (default 10^15 wei,
/// 0.001 ETH): under that balance the relayer takes no new work.
pub struct RelayerSettings {
    pub key: PrivateKey,
    pub min_balance_wei: u128,
    /// `STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT` (default 10) and
    /// `STABLEPAY_RELAYER_REVERT_BUDGET_MIN_GAS` (default 1000000): over the last hour, on
    /// each chain, relays that reverted using at least the minimum and more than that share
    /// of the relayer's gas pause relaying there (D30).
    pub revert_budget: RevertBudget,
}

/// The relayer's floor when `STABLEPAY_RELAYER_MIN_BALANCE_WEI` is unset: 0.001 ETH.
pub const DEFAULT_RELAYER_MIN_BALANCE_WEI: u128 = 1_000_000_000_000_000;

impl std::fmt::Debug for ChainEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // RPC URLs often carry a provider's API key: only which chains have one.
        let chains: Vec<u64> = self.rpc_urls.iter().map(|(c, _)| c.id()).collect();
        f.debug_struct("ChainEnv")
            .field("rpc_chains", &chains)
            .field("contracts", &self.contracts)
            .finish_non_exhaustive()
    }
}

fn fail(var: &str, problem: impl Into<String>) -> ConfigError {
    ConfigError::new(var, problem)
}

fn address(name: &str) -> Result<Option<Address>, ConfigError> {
    var(name)
        .map(|v| Address::parse(v.trim()).map_err(|e| fail(name, e.to_string())))
        .transpose()
}

fn key(name: &str) -> Result<Option<PrivateKey>, ConfigError> {
    var(name)
        .map(|v| PrivateKey::parse_hex(&v).map_err(|e| fail(name, e.to_string())))
        .transpose()
}

use stablepay_domain::parse_duration;

impl ChainEnv {
    pub fn from_env(role: KeyRole) -> Result<Self, ConfigError> {
        let mut rpc_urls = Vec::new();
        let mut contracts = Vec::new();
        let mut max_fee_wei = Vec::new();
        for chain in ChainId::ALL {
            let id = chain.id();
            let cap_var = format!("STABLEPAY_MAX_FEE_GWEI_{id}");
            if let Some(v) = var(&cap_var) {
                let wei = parse_gwei(&v).filter(|w| *w > 0).ok_or_else(|| {
                    fail(&cap_var, "must be a positive number of gwei with at most 9 decimals (e.g. 2 or 0.05)")
                })?;
                max_fee_wei.push((chain, wei));
            }
            let rpc_var = format!("STABLEPAY_RPC_URL_{id}");
            if let Some(urls) = var(&rpc_var) {
                // One URL or a list in order of preference (D27: calls fail over).
                for (i, url) in urls.split(',').map(str::trim).enumerate() {
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(fail(
                            &rpc_var,
                            format!(
                                "entry {} must be an http(s) URL (a comma-separated list in order of preference)",
                                i + 1
                            ),
                        ));
                    }
                }
                rpc_urls.push((chain, urls));
            }
            let router = address(&format!("STABLEPAY_CHECKOUT_ROUTER_{id}"))?;
            let treasury = address(&format!("STABLEPAY_TREASURY_{id}"))?;
            let confirmations_var = format!("STABLEPAY_CONFIRMATIONS_{id}");
            let confirmations = match var(&confirmations_var) {
                None => 10,
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| fail(&confirmations_var, "must be a whole number ≥ 1"))?,
            };
            match (router, treasury) {
                (Some(checkout_router), Some(treasury)) => contracts.push(ChainContracts {
                    chain,
                    checkout_router,
                    treasury,
                    subscription_manager: address(&format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"))?,
                    deposit_factory: address(&format!("STABLEPAY_DEPOSIT_FACTORY_{id}"))?,
                    confirmations,
                }),
                (None, None) => {}
                _ => {
                    return Err(fail(
                        &format!("STABLEPAY_CHECKOUT_ROUTER_{id}/STABLEPAY_TREASURY_{id}"),
                        "set both or neither",
                    ))
                }
            }
        }
        let timeout_ms = match var("STABLEPAY_RPC_TIMEOUT_MS") {
            None => 2000,
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| fail("STABLEPAY_RPC_TIMEOUT_MS", "must be a number"))?,
        };
        let intent_ttl = match var("STABLEPAY_INTENT_TTL") {
            None => Duration::from_secs(DEFAULT_INTENT_TTL_SECS),
            Some(v) => parse_duration(&v)
                .filter(|d| d.as_secs() >= 1)
                .ok_or_else(|| {
                    fail(
                        "STABLEPAY_INTENT_TTL",
                        "must be a duration of at least 1s (e.g. 15m)",
                    )
                })?,
        };
        let plan_min_interval = match var("STABLEPAY_PLAN_MIN_INTERVAL") {
            None => Duration::from_secs(86_400),
            Some(v) => parse_duration(&v)
                .filter(|d| d.as_secs() >= 1)
                .ok_or_else(|| {
                    fail(
                        "STABLEPAY_PLAN_MIN_INTERVAL",
                        "must be a duration of at least 1s (e.g. 1d)",
                    )
                })?,
        };
        let dunning = match var("STABLEPAY_DUNNING_DELAYS") {
            None => DunningPolicy::default(),
            Some(v) => DunningPolicy::parse(&v).map_err(|e| {
                fail(
                    "STABLEPAY_DUNNING_DELAYS",
                    format!("{e} (a list such as 1d,3d,5d)"),
                )
            })?,
        };
        Ok(Self {
            rpc_urls,
            contracts: ChainDirectory::new(contracts),
            tokens: tokens()?,
            price_feeds: crate::price_feeds()?,
            max_fee_wei,
            keeper_min_balance_wei: crate::number(
                "STABLEPAY_KEEPER_MIN_BALANCE_WEI",
                DEFAULT_RELAYER_MIN_BALANCE_WEI,
            )?,
            intent_ttl,
            plan_min_interval,
            dunning,
            signing_key: key(match role {
                KeyRole::Operator => "STABLEPAY_OPERATOR_KEY",
                KeyRole::Keeper => "STABLEPAY_KEEPER_KEY",
            })?,
            rpc_timeout: Duration::from_millis(timeout_ms),
            relayer: match key("STABLEPAY_RELAYER_KEY")? {
                Some(key) => Some(RelayerSettings {
                    key,
                    min_balance_wei: crate::number(
                        "STABLEPAY_RELAYER_MIN_BALANCE_WEI",
                        DEFAULT_RELAYER_MIN_BALANCE_WEI,
                    )?,
                    revert_budget: revert_budget()?,
                }),
                None => None,
            },
        })
    }
}

fn revert_budget() -> Result<RevertBudget, ConfigError> {
    let default = RevertBudget::DEFAULT;
    let percent = crate::number(
        "STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT",
        u64::from(default.percent()),
    )?;
    let min_gas = crate::number("STABLEPAY_RELAYER_REVERT_BUDGET_MIN_GAS", default.min_gas())?;
    RevertBudget::new(percent, min_gas)
        .map_err(|e| fail("STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT", e.to_string()))
}

/// An exact amount of gwei in wei: "2" → 2·10⁹, "0.05" → 5·10⁷; no floats, at most 9
/// decimals (a wei is 10⁻⁹ gwei).
fn parse_gwei(text: &str) -> Option<u128> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 9 {
        return None;
    }
    let whole: u128 = whole.parse().ok()?;
    let fraction: u128 = format!("{fraction:0<9}").parse().ok()?;
    whole.checked_mul(1_000_000_000)?.checked_add(fraction)
}

fn tokens() -> Result<TokenDirectory, ConfigError> {
    let mut dir = TokenDirectory::new();
    let entries: [(&'static str, ChainId, Currency, Option<&str>); 6] = [
        (
            "STABLEPAY_TOKEN_USDC_8453",
            ChainId::Base,
            Currency::Usdc,
            Some(USDC_BASE),
        ),
        (
            "STABLEPAY_TOKEN_USDC_84532",
            ChainId::BaseSepolia,
            Currency::Usdc,
            Some(USDC_BASE_SEPOLIA),
        ),
        (
            "STABLEPAY_TOKEN_USDT_8453",
            ChainId::Base,
            Currency::Usdt,
            None,
        ),
        (
            "STABLEPAY_TOKEN_USDT_84532",
            ChainId::BaseSepolia,
            Currency::Usdt,
            None,
        ),
        (
            "STABLEPAY_TOKEN_EURC_8453",
            ChainId::Base,
            Currency::Eurc,
            Some(EURC_BASE),
        ),
        (
            "STABLEPAY_TOKEN_EURC_84532",
            ChainId::BaseSepolia,
            Currency::Eurc,
            Some(EURC_BASE_SEPOLIA),
        ),
    ];
    for (name, chain, currency, default) in entries {
        let value = var(name).or(default.map(str::to_owned));
        if let Some(v) = value {
            let address = Address::parse(v.trim()).map_err(|e| fail(name, e.to_string()))?;
            dir = dir.with(chain, currency, address);
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::parse_gwei;

    #[test]
    fn gwei_amounts_are_read_exactly() {
        assert_eq!(parse_gwei("2"), Some(2_000_000_000));
        assert_eq!(parse_gwei(" 0.05 "), Some(50_000_000));
        assert_eq!(parse_gwei("0.000000001"), Some(1));
        assert_eq!(parse_gwei("1.5"), Some(1_500_000_000));
        for bad in ["", ".5", "1.0000000001", "-1", "1e9", "one", "1.2.3"] {
            assert_eq!(parse_gwei(bad), None, "{bad}");
        }
    }
}
