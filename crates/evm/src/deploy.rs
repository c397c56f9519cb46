//! `stablepay-api contracts deploy` (D27): the checkout router, subscription manager and
//! deposit factory from the committed bytecode (`contracts/out`), with the given operator,
//! keeper and treasury, sent from a deployer key, waited on to the confirmation depth.
//! Safe to re-run: a contract named by its address is verified (code, operator, keeper,
//! treasury) and kept rather than deployed twice.

use std::sync::Arc;
use std::time::Duration;

use ethers::abi::Token;
use ethers::middleware::SignerMiddleware;
use ethers::providers::Middleware;
use ethers::signers::{LocalWallet, Signer};
use ethers::types::{TransactionRequest, H256};
use stablepay_domain::ports::ChainReader;
use stablepay_domain::{Address, ChainId, PrivateKey};

use crate::doctor::{address_getter, not_the_contract, ServiceContract};
use crate::{from_h160, to_h160, EvmChain};

/// What to deploy, and what exists already.
#[derive(Debug, Clone)]
pub struct DeployPlan {
    pub chain: ChainId,
    pub operator: Address,
    pub keeper: Address,
    pub treasury: Address,
    /// Blocks, including the one with the deployment, before it counts (at least 1).
    pub confirmations: u64,
    /// Contracts a previous run deployed: verified and kept.
    pub router: Option<Address>,
    pub manager: Option<Address>,
    pub factory: Option<Address>,
}

/// The three addresses to configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployment {
    pub router: Address,
    pub manager: Address,
    pub factory: Address,
}

impl Deployment {
    /// The `STABLEPAY_*_<chain>` lines to configure, one per line.
    pub fn env_lines(&self, chain: ChainId, treasury: Address) -> String {
        let id = chain.id();
        format!(
            "STABLEPAY_CHECKOUT_ROUTER_{id}={}\nSTABLEPAY_SUBSCRIPTION_MANAGER_{id}={}\nSTABLEPAY_DEPOSIT_FACTORY_{id}={}\nSTABLEPAY_TREASURY_{id}={treasury}\n",
            self.router, self.manager, self.factory
        )
    }
}

/// The flag that names an existing `kind` on a re-run.
fn flag(kind: ServiceContract) -> &'static str {
    match kind {
        ServiceContract::Router => "--router",
        ServiceContract::Manager => "--subscription-manager",
        ServiceContract::Factory => "--deposit-factory",
    }
}

fn artifact(kind: ServiceContract) -> &'static str {
    match kind {
        ServiceContract::Router => include_str!("../../../contracts/out/CheckoutRouter.json"),
        ServiceContract::Manager => {
            include_str!("../../../contracts/out/SubscriptionManager.json")
        }
        ServiceContract::Factory => include_str!("../../../contracts/out/DepositFactory.json"),
    }
}

/// (getter, what the plan says it answers), in constructor order: the role table is the
/// doctor's (`ServiceContract::roles`).
fn expected(kind: ServiceContract, plan: &DeployPlan) -> Vec<(&'static str, Address)> {
    kind.roles()
        .iter()
        .map(|getter| {
            let address = match *getter {
                "operator()" => plan.operator,
                "keeper()" => plan.keeper,
                _ => plan.treasury,
            };
            (*getter, address)
        })
        .collect()
}

/// Creation code with the constructor's arguments (its roles, in order).
fn creation_code(kind: ServiceContract, plan: &DeployPlan) -> Result<Vec<u8>, String> {
    let name = kind.name();
    let artifact: serde_json::Value =
        serde_json::from_str(artifact(kind)).map_err(|e| format!("the {name} artifact: {e}"))?;
    let hex_code = artifact["bytecode"]
        .as_str()
        .ok_or_else(|| format!("the {name} artifact has no bytecode"))?;
    let mut code = hex::decode(hex_code.trim_start_matches("0x"))
        .map_err(|e| format!("the {name} bytecode: {e}"))?;
    let args: Vec<Token> = expected(kind, plan)
        .into_iter()
        .map(|(_, a)| Token::Address(to_h160(&a)))
        .collect();
    code.extend(ethers::abi::encode(&args));
    Ok(code)
}

/// Deploys what `plan` does not name, verifies what it does, and waits until every new
/// contract is `confirmations` deep. `progress` gets one line per step.
pub async fn deploy_contracts(
    rpc_url: &str,
    deployer: &PrivateKey,
    plan: &DeployPlan,
    progress: impl Fn(String),
) -> Result<Deployment, String> {
    if plan.confirmations == 0 {
        return Err("--confirmations must be at least 1".into());
    }
    let evm = EvmChain::new(&[(plan.chain, rpc_url.to_owned())], Duration::from_secs(10))?;
    let provider = evm.provider(plan.chain).map_err(|e| e.to_string())?.clone();
    let on = provider
        .get_chainid()
        .await
        .map_err(|e| crate::redact_urls(&format!("eth_chainId: {e}")))?;
    if on.as_u64() != plan.chain.id() {
        return Err(format!(
            "the node at --rpc-url is on chain {on}, not {}",
            plan.chain.id()
        ));
    }
    let wallet = LocalWallet::from_bytes(deployer.expose())
        .map_err(|_| "the deployer key is not a valid secp256k1 key".to_owned())?
        .with_chain_id(plan.chain.id());
    progress(format!(
        "deployer {} on chain {}",
        from_h160(wallet.address()),
        plan.chain.id()
    ));
    let client = Arc::new(SignerMiddleware::new(provider.clone(), wallet));
    let mut sent: Vec<(ServiceContract, Address, H256)> = Vec::new();
    let mut addresses = Vec::new();
    for (kind, given) in [
        (ServiceContract::Router, plan.router),
        (ServiceContract::Manager, plan.manager),
        (ServiceContract::Factory, plan.factory),
    ] {
        if let Some(address) = given {
            verify(&evm, plan, kind, address).await?;
            progress(format!("{} exists at {address}: kept", kind.name()));
            addresses.push(address);
            continue;
        }
        let tx = TransactionRequest::new().data(creation_code(kind, plan)?);
        let receipt = client
            .send_transaction(tx, None)
            .await
            .map_err(|e| crate::redact_urls(&format!("deploying the {}: {e}", kind.name())))?
            .await
            .map_err(|e| crate::redact_urls(&format!("deploying the {}: {e}", kind.name())))?
            .ok_or_else(|| {
                format!(
                    "the {} deployment got no receipt (dropped, or the node lags): check the deployer's transactions, then re-run naming the contracts that exist",
                    kind.name()
                )
            })?;
        let address = match (receipt.status.map(|s| s.as_u64()), receipt.contract_address) {
            (Some(1), Some(a)) => from_h160(a),
            _ => {
                return Err(format!(
                    "the {} deployment {:#x} reverted",
                    kind.name(),
                    receipt.transaction_hash
                ))
            }
        };
        progress(format!(
            "{} deployed at {address} (tx {:#x})",
            kind.name(),
            receipt.transaction_hash
        ));
        addresses.push(address);
        sent.push((kind, address, receipt.transaction_hash));
    }
    for (kind, address, tx) in &sent {
        wait_for_depth(&provider, *tx, plan.confirmations).await?;
        verify(&evm, plan, *kind, *address).await?;
        progress(format!(
            "{} is {} blocks deep",
            kind.name(),
            plan.confirmations
        ));
    }
    Ok(Deployment {
        router: addresses[0],
        manager: addresses[1],
        factory: addresses[2],
    })
}

/// A contract at `address` with code and the plan's roles, or an error naming its flag.
async fn verify(
    evm: &EvmChain,
    plan: &DeployPlan,
    kind: ServiceContract,
    address: Address,
) -> Result<(), String> {
    let flag = flag(kind);
    if !ChainReader::is_contract(evm, plan.chain, address)
        .await
        .map_err(|e| e.to_string())?
    {
        return Err(format!("{flag} {address}: no contract there"));
    }
    if let Some(why) = not_the_contract(evm, plan.chain, kind, address).await? {
        return Err(format!("{flag} {why}"));
    }
    for (getter, expected) in expected(kind, plan) {
        let got = address_getter(evm, plan.chain, address, getter)
            .await
            .map_err(|e| format!("{flag} {address}: {e}"))?
            .ok_or_else(|| format!("{flag} {address}: {getter} reverted or answered no address"))?;
        if got != expected {
            return Err(format!(
                "{flag} {address}: the {}'s {getter} is {got}, not {expected}",
                kind.name()
            ));
        }
    }
    Ok(())
}

/// Polls until the transaction's block is `depth` deep and the receipt is still there
/// (a deployment a reorg removed fails: re-run with the addresses that exist).
async fn wait_for_depth(provider: &crate::RpcProvider, tx: H256, depth: u64) -> Result<(), String> {
    let started = std::time::Instant::now();
    loop {
        let receipt = provider
            .get_transaction_receipt(tx)
            .await
            .map_err(|e| crate::redact_urls(&format!("eth_getTransactionReceipt: {e}")))?;
        let head = provider
            .get_block_number()
            .await
            .map_err(|e| crate::redact_urls(&format!("eth_blockNumber: {e}")))?
            .as_u64();
        // A missing receipt (a lagging node, or a reorg) is unknown: asked again.
        if let Some(block) = receipt.and_then(|r| r.block_number) {
            if head + 1 >= block.as_u64() + depth {
                return Ok(());
            }
        }
        if started.elapsed() > Duration::from_secs(30 * 60) {
            return Err(format!(
                "deployment {tx:#x} was not {depth} deep after 30 minutes; check the deployer's transactions, then re-run naming the contracts that exist"
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> DeployPlan {
        DeployPlan {
            chain: ChainId::BaseSepolia,
            operator: Address::from_bytes([1; 20]),
            keeper: Address::from_bytes([2; 20]),
            treasury: Address::from_bytes([3; 20]),
            confirmations: 2,
            router: None,
            manager: None,
            factory: None,
        }
    }

    #[test]
    fn creation_code_ends_with_the_constructor_roles_in_order() {
        let code = creation_code(ServiceContract::Manager, &plan()).unwrap();
        let tail = &code[code.len() - 96..];
        assert_eq!(&tail[12..32], &[1; 20]);
        assert_eq!(&tail[44..64], &[2; 20]);
        assert_eq!(&tail[76..96], &[3; 20]);
        let factory = creation_code(ServiceContract::Factory, &plan()).unwrap();
        assert_eq!(&factory[factory.len() - 20..], &[3; 20]);
    }

    #[test]
    fn the_lines_to_configure_name_the_chain() {
        let d = Deployment {
            router: Address::from_bytes([0xaa; 20]),
            manager: Address::from_bytes([0xbb; 20]),
            factory: Address::from_bytes([0xcc; 20]),
        };
        let lines = d.env_lines(ChainId::Base, Address::from_bytes([3; 20]));
        assert_eq!(lines.lines().count(), 4);
        assert!(lines.starts_with("STABLEPAY_CHECKOUT_ROUTER_8453=0x"));
        assert!(lines.contains("STABLEPAY_TREASURY_8453=0x0303"));
    }
}
