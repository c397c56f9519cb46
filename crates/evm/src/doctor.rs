//! The configuration checked against each chain (D27): the RPC's chain id, code at every
//! contract, the contracts' operator, keeper and treasury against the configured keys and
//! treasury, 6-decimal tokens (EIP-3009 where one-signature payments are on), and the ETH
//! of the keys that pay gas. `stablepay-api doctor` prints every check; `serve` and the
//! worker run the same checks at start and refuse a mismatch. A chain that does not answer
//! is unknown, never a mismatch: a process still starts while its provider is down.

use ethers::providers::{Middleware, RpcError};
use ethers::types::{Bytes, TransactionRequest, U256};
use stablepay_config::ChainEnv;
use stablepay_domain::deployment::ChainContracts;
use stablepay_domain::ports::ChainReader;
use stablepay_domain::{Address, ChainId, Currency, PrivateKey};

use crate::{from_h160, to_h160, EvmChain};

/// What one check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Ok(String),
    /// The configuration and the chain disagree: the variable named is wrong.
    Mismatch(String),
    /// Below a floor: works now, not for long.
    Low(String),
    /// Stopped by its own guard: relaying paused by the revert budget (D30).
    Paused(String),
    /// The chain did not answer: nothing is known.
    Unknown(String),
}

/// One check: the variable it checks and what it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub variable: String,
    pub verdict: Verdict,
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (tag, text) = match &self.verdict {
            Verdict::Ok(t) => ("ok     ", t),
            Verdict::Mismatch(t) => ("FAIL   ", t),
            Verdict::Low(t) => ("LOW    ", t),
            Verdict::Paused(t) => ("PAUSED ", t),
            Verdict::Unknown(t) => ("UNKNOWN", t),
        };
        write!(f, "{tag} {}: {text}", self.variable)
    }
}

/// A key the process signs with, and the ETH it should hold.
#[derive(Debug, Clone)]
pub struct FundedKey {
    /// The variable that holds the key.
    pub variable: &'static str,
    pub address: Address,
    pub floor_wei: u128,
}

/// What one chain should look like, from the configuration.
#[derive(Debug, Clone)]
pub struct ChainExpectation {
    pub contracts: ChainContracts,
    pub tokens: Vec<(Currency, Address)>,
    /// The price feeds configured on the chain (D34), by pair.
    pub feeds: Vec<(stablepay_domain::FeedPair, Address)>,
    /// The address of `STABLEPAY_OPERATOR_KEY`, when this process holds it.
    pub operator: Option<Address>,
    /// The address of `STABLEPAY_KEEPER_KEY`, when this process holds it.
    pub keeper: Option<Address>,
    pub funded: Vec<FundedKey>,
    /// One-signature payments are on (a relayer is set): USDC must speak EIP-3009.
    pub eip3009: bool,
}

/// The address a key signs as.
pub fn key_address(key: &PrivateKey) -> Result<Address, String> {
    use ethers::signers::Signer;
    ethers::signers::LocalWallet::from_bytes(key.expose())
        .map(|w| from_h160(w.address()))
        .map_err(|_| "not a valid secp256k1 key".to_owned())
}

/// The expectations of every chain with an RPC URL and contracts. `operator` and
/// `keeper` are the keys this process holds (the doctor command holds both if set).
pub fn expectations(
    env: &ChainEnv,
    operator: Option<&PrivateKey>,
    keeper: Option<&PrivateKey>,
) -> Result<Vec<ChainExpectation>, String> {
    let operator = operator
        .map(key_address)
        .transpose()
        .map_err(|e| format!("STABLEPAY_OPERATOR_KEY: {e}"))?;
    let keeper = keeper
        .map(key_address)
        .transpose()
        .map_err(|e| format!("STABLEPAY_KEEPER_KEY: {e}"))?;
    let relayer = env
        .relayer
        .as_ref()
        .map(|r| key_address(&r.key).map(|a| (a, r.min_balance_wei)))
        .transpose()
        .map_err(|e| format!("STABLEPAY_RELAYER_KEY: {e}"))?;
    let mut out = Vec::new();
    for (chain, _) in &env.rpc_urls {
        let Some(contracts) = env.contracts.get(*chain).copied() else {
            continue;
        };
        let tokens = Currency::ALL
            .into_iter()
            .filter_map(|c| env.tokens.token(*chain, c).map(|a| (c, a)))
            .collect();
        let mut funded = Vec::new();
        if let Some((address, floor_wei)) = relayer {
            funded.push(FundedKey {
                variable: "STABLEPAY_RELAYER_KEY",
                address,
                floor_wei,
            });
        }
        if let (Some(address), Some(_)) = (keeper, contracts.subscription_manager) {
            funded.push(FundedKey {
                variable: "STABLEPAY_KEEPER_KEY",
                address,
                floor_wei: env.keeper_min_balance_wei,
            });
        }
        out.push(ChainExpectation {
            contracts,
            tokens,
            feeds: env.price_feeds.on(*chain),
            operator,
            keeper,
            funded,
            eip3009: relayer.is_some(),
        });
    }
    Ok(out)
}

fn check(variable: impl Into<String>, verdict: Verdict) -> Check {
    Check {
        variable: variable.into(),
        verdict,
    }
}

/// Every check of one chain, in a fixed order.
pub async fn check_chain(evm: &EvmChain, want: &ChainExpectation) -> Vec<Check> {
    let chain = want.contracts.chain;
    let id = chain.id();
    let mut checks = Vec::new();
    let rpc_var = format!("STABLEPAY_RPC_URL_{id}");
    // Each listed provider on its own: one on another chain would feed it wrong answers.
    let total = evm.provider_count(chain);
    let mut answered = false;
    for position in 1..=total {
        let who = if total > 1 {
            format!("provider {position} of {total}: ")
        } else {
            String::new()
        };
        match chain_id(evm, chain, position).await {
            Ok(got) if got == id => {
                answered = true;
                checks.push(check(&rpc_var, Verdict::Ok(format!("{who}chain id {id}"))));
            }
            Ok(got) => {
                // Nothing else is worth asking a node of another chain.
                checks.push(check(
                    &rpc_var,
                    Verdict::Mismatch(format!(
                        "{who}the node is on chain {got}, configured for {id}"
                    )),
                ));
                return checks;
            }
            Err(e) => checks.push(check(&rpc_var, Verdict::Unknown(format!("{who}{e}")))),
        }
    }
    if !answered {
        return checks;
    }
    let c = &want.contracts;
    let mut contracts = vec![(
        format!("STABLEPAY_CHECKOUT_ROUTER_{id}"),
        c.checkout_router,
        ServiceContract::Router,
    )];
    if let Some(m) = c.subscription_manager {
        contracts.push((
            format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"),
            m,
            ServiceContract::Manager,
        ));
    }
    if let Some(f) = c.deposit_factory {
        contracts.push((
            format!("STABLEPAY_DEPOSIT_FACTORY_{id}"),
            f,
            ServiceContract::Factory,
        ));
    }
    let treasury_var = format!("STABLEPAY_TREASURY_{id}");
    for (variable, address, kind) in &contracts {
        let what = kind.name();
        let verdict = match ChainReader::is_contract(evm, chain, *address).await {
            Ok(true) => match not_the_contract(evm, chain, *kind, *address).await {
                Ok(None) => Verdict::Ok(format!("{what} at {address}")),
                Ok(Some(why)) => Verdict::Mismatch(why),
                Err(e) => Verdict::Unknown(e),
            },
            Ok(false) => Verdict::Mismatch(format!("no contract at {address}")),
            Err(e) => Verdict::Unknown(e.to_string()),
        };
        let recognised = matches!(verdict, Verdict::Ok(_));
        checks.push(check(variable, verdict));
        if !recognised {
            continue;
        }
        // Who the contract trusts, against the keys and treasury configured.
        let roles: Vec<(&str, &str, Option<Address>)> = kind
            .roles()
            .iter()
            .map(|getter| match *getter {
                "operator()" => (*getter, "STABLEPAY_OPERATOR_KEY", want.operator),
                "keeper()" => (*getter, "STABLEPAY_KEEPER_KEY", want.keeper),
                _ => (*getter, treasury_var.as_str(), Some(c.treasury)),
            })
            .collect();
        for (getter, role_var, expected) in roles {
            let Some(expected) = expected else { continue };
            let verdict = match address_getter(evm, chain, *address, getter).await {
                Ok(Some(got)) if got == expected => {
                    Verdict::Ok(format!("{what} {getter} is {got}"))
                }
                Ok(Some(got)) => Verdict::Mismatch(format!(
                    "the {what}'s {getter} is {got}, configured {expected}"
                )),
                Ok(None) => Verdict::Mismatch(format!(
                    "the {what}'s {getter} reverted or answered no address"
                )),
                Err(e) => Verdict::Unknown(e),
            };
            checks.push(check(role_var, verdict));
        }
    }
    for (currency, token) in &want.tokens {
        let variable = format!("STABLEPAY_TOKEN_{}_{id}", currency.as_str());
        let verdict = match decimals(evm, chain, *token).await {
            Ok(Some(6)) => Verdict::Ok(format!("{currency} at {token} has 6 decimals")),
            Ok(Some(d)) => Verdict::Mismatch(format!("{token} has {d} decimals, not 6")),
            Ok(None) => Verdict::Mismatch(format!("{token} answers no decimals(): not a token")),
            Err(e) => Verdict::Unknown(e),
        };
        let fine = matches!(verdict, Verdict::Ok(_));
        checks.push(check(&variable, verdict));
        if fine && want.eip3009 && currency.is_fiat_token() {
            let verdict = match ChainReader::authorization_domain(evm, chain, *token).await {
                Ok(Some(d)) => Verdict::Ok(format!(
                    "{token} speaks EIP-3009 ({} version {})",
                    d.name, d.version
                )),
                Ok(None) => Verdict::Mismatch(format!(
                    "{token} has no EIP-3009 transferWithAuthorization, which one-signature payments need"
                )),
                Err(e) => Verdict::Unknown(e.to_string()),
            };
            checks.push(check(&variable, verdict));
        }
    }
    for (pair, feed) in &want.feeds {
        let variable = pair.feed_variable(id);
        let verdict = match ChainReader::price_feed_round(evm, chain, *feed).await {
            Ok(Some(r)) if r.decimals == stablepay_domain::rules::pricing::FEED_DECIMALS => {
                Verdict::Ok(format!(
                    "{} at {feed} answers {} (round {}, updated {})",
                    pair.as_str(),
                    r.answer,
                    r.round_id,
                    r.updated_at.as_datetime().to_rfc3339()
                ))
            }
            Ok(Some(r)) => Verdict::Mismatch(format!(
                "{feed} has {} decimals, not the 8 of a USD pair",
                r.decimals
            )),
            Ok(None) => Verdict::Mismatch(format!(
                "{feed} answers no latestRoundData(): not a price feed"
            )),
            Err(e) => Verdict::Unknown(e.to_string()),
        };
        checks.push(check(&variable, verdict));
    }
    for key in &want.funded {
        let verdict = match balance(evm, chain, key.address).await {
            Ok(wei) if wei >= key.floor_wei => Verdict::Ok(format!(
                "{} holds {wei} wei on chain {id} (floor {})",
                key.address, key.floor_wei
            )),
            Ok(wei) => Verdict::Low(format!(
                "{} holds {wei} wei on chain {id}, under the floor of {}",
                key.address, key.floor_wei
            )),
            Err(e) => Verdict::Unknown(e),
        };
        checks.push(check(key.variable, verdict));
    }
    checks
}

/// The chain id that the provider at `position` (1-based) in the chain's list answers.
async fn chain_id(evm: &EvmChain, chain: ChainId, position: usize) -> Result<u64, String> {
    let p = evm
        .provider_at(chain, position)
        .map_err(|e| e.to_string())?;
    let id = evm
        .timed("eth_chainId", p.get_chainid())
        .await
        .map_err(|e| e.to_string())?;
    u64::try_from(id).map_err(|_| format!("a chain id out of range: {id}"))
}

/// `eth_call` of a no-argument function; `None` when it reverted (an answer: no such
/// function there), `Err` when the node did not answer.
async fn call(
    evm: &EvmChain,
    chain: ChainId,
    to: Address,
    signature: &str,
) -> Result<Option<Bytes>, String> {
    let p = evm.provider(chain).map_err(|e| e.to_string())?;
    let tx = TransactionRequest::new()
        .to(to_h160(&to))
        .data(ethers::utils::id(signature).to_vec());
    match tokio::time::timeout(evm.call_budget(), p.call(&tx.into(), None)).await {
        Ok(Ok(out)) => Ok(Some(out)),
        // A revert is an answer (no such function here), not an outage.
        Ok(Err(e))
            if e.as_error_response()
                .is_some_and(|r| r.message.contains("revert")) =>
        {
            Ok(None)
        }
        Ok(Err(e)) => Err(crate::redact_urls(&format!("eth_call {signature}: {e}"))),
        Err(_) => Err(format!("eth_call {signature}: timed out")),
    }
}

/// An `address`-returning getter (`operator()`, `keeper()`, `treasury()`); `None` when it
/// reverted or answered something else.
pub(crate) async fn address_getter(
    evm: &EvmChain,
    chain: ChainId,
    contract: Address,
    getter: &str,
) -> Result<Option<Address>, String> {
    Ok(call(evm, chain, contract, getter)
        .await?
        .and_then(|out| address_word(&out)))
}

/// The service's contracts, as the doctor and the deployer recognise them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceContract {
    Router,
    Manager,
    Factory,
}

impl ServiceContract {
    pub fn name(self) -> &'static str {
        match self {
            ServiceContract::Router => "checkout router",
            ServiceContract::Manager => "subscription manager",
            ServiceContract::Factory => "deposit factory",
        }
    }

    /// Its role getters, in constructor order.
    pub fn roles(self) -> &'static [&'static str] {
        match self {
            ServiceContract::Router => &["operator()", "treasury()"],
            ServiceContract::Manager => &["operator()", "keeper()", "treasury()"],
            ServiceContract::Factory => &["treasury()"],
        }
    }
}

/// Whether `address` is that contract of the service on `chain`: `Ok(None)` when it is,
/// `Ok(Some(why))` when the chain says it is not (any contract may have a `treasury()`:
/// the router and manager are told apart by their EIP-712 domain, the factory by the
/// forwarder it deployed), `Err` when the node did not answer.
pub(crate) async fn not_the_contract(
    evm: &EvmChain,
    chain: ChainId,
    kind: ServiceContract,
    address: Address,
) -> Result<Option<String>, String> {
    use stablepay_domain::rules::{deposit, eip712};
    let what = kind.name();
    let name = match kind {
        ServiceContract::Router => eip712::ROUTER_NAME,
        ServiceContract::Manager => eip712::SUBSCRIPTIONS_NAME,
        ServiceContract::Factory => {
            let implementation = address_getter(evm, chain, address, "implementation()").await?;
            return Ok((implementation != Some(deposit::forwarder_implementation(&address)))
                .then(|| {
                    format!("{address} is not a stablepay {what}: its implementation() is not the forwarder it deployed")
                }));
        }
    };
    let want = eip712::Domain {
        name,
        chain_id: chain.id(),
        verifying_contract: address,
    }
    .separator();
    let got = call(evm, chain, address, "DOMAIN_SEPARATOR()").await?;
    Ok(
        (got.as_deref().and_then(|o| o.get(..32)) != Some(&want[..])).then(|| {
            format!(
                "{address} is not a stablepay {what} for chain {}: its EIP-712 domain differs",
                chain.id()
            )
        }),
    )
}

fn address_word(out: &[u8]) -> Option<Address> {
    let word: &[u8; 32] = out.get(..32)?.try_into().ok()?;
    if word[..12].iter().any(|b| *b != 0) {
        return None;
    }
    Some(Address::from_bytes(word[12..].try_into().ok()?))
}

/// `decimals()`; `None` when the answer is not a uint8 (no such function).
async fn decimals(evm: &EvmChain, chain: ChainId, token: Address) -> Result<Option<u8>, String> {
    let Some(out) = call(evm, chain, token, "decimals()").await? else {
        return Ok(None);
    };
    Ok(out
        .get(..32)
        .map(U256::from_big_endian)
        .and_then(|d| u8::try_from(d).ok()))
}

async fn balance(evm: &EvmChain, chain: ChainId, who: Address) -> Result<u128, String> {
    let p = evm.provider(chain).map_err(|e| e.to_string())?;
    let wei = evm
        .timed("eth_getBalance", p.get_balance(to_h160(&who), None))
        .await
        .map_err(|e| e.to_string())?;
    Ok(u128::try_from(wei).unwrap_or(u128::MAX))
}

/// The first check that must stop a process from starting: a mismatch (a low balance
/// or an unknown answer does not).
pub fn first_mismatch(checks: &[Check]) -> Option<&Check> {
    checks
        .iter()
        .find(|c| matches!(c.verdict, Verdict::Mismatch(_)))
}

/// Runs every chain's checks at a process's start: a mismatch is an error naming its
/// variable (the process refuses to start); the rest is logged.
pub async fn preflight(evm: &EvmChain, chains: &[ChainExpectation]) -> Result<(), String> {
    for want in chains {
        let checks = check_chain(evm, want).await;
        for c in &checks {
            match &c.verdict {
                Verdict::Ok(_) => tracing::debug!(check = %c, "preflight"),
                Verdict::Low(_) | Verdict::Paused(_) | Verdict::Unknown(_) => {
                    tracing::warn!(check = %c, "preflight")
                }
                Verdict::Mismatch(_) => {}
            }
        }
        if let Some(bad) = first_mismatch(&checks) {
            return Err(format!(
                "refusing to start: {bad} (run `stablepay-api doctor` for every check)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_word_has_twelve_zero_bytes() {
        let mut word = [0u8; 32];
        word[12..].copy_from_slice(&[0xab; 20]);
        assert_eq!(address_word(&word), Some(Address::from_bytes([0xab; 20])));
        word[0] = 1;
        assert_eq!(address_word(&word), None);
        assert_eq!(address_word(&[0u8; 31]), None);
    }

    #[test]
    fn only_a_mismatch_stops_a_start() {
        let checks = vec![
            check("A", Verdict::Unknown("timeout".into())),
            check("B", Verdict::Low("0 wei".into())),
            check("C", Verdict::Mismatch("wrong".into())),
        ];
        assert_eq!(
            first_mismatch(&checks).map(|c| c.variable.as_str()),
            Some("C")
        );
        assert!(first_mismatch(&checks[..2]).is_none());
        assert_eq!(checks[2].to_string(), "FAIL    C: wrong");
    }
}
