//! Dev chains: two anvil nodes (84532 and 8453) with the contracts deployed and the demo
//! accounts funded, driven over plain JSON-RPC with anvil's unlocked accounts.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stablepay_domain::rules::eip191;
use stablepay_domain::FeedPair;

use crate::util::{root, spawn_reporting};

/// anvil's well-known development keys (mnemonic "test test … junk"); public, test only.
pub const KEYS: [&str; 10] = [
    "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
    "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
    "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
    "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
    "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
    "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];
pub const OPERATOR: usize = 0;
pub const MERCHANTS: [usize; 2] = [1, 2];
pub const BUYERS: [usize; 3] = [3, 4, 5];
pub const TREASURY: usize = 6;
pub const KEEPER: usize = 7;
pub const SMART_WALLET_OWNER: usize = 8;
/// Owns the dev sanctions oracle (D33): tests add and remove listed addresses with it.
pub const SANCTIONS_OWNER: usize = 9;
/// The dev price feeds (D34) and their first answers (8 decimals): the euro at 1.0825
/// dollars, USDC at its peg, USDT a hair under, EURC beside the euro. Tests move them.
pub const PRICE_FEEDS: [(FeedPair, u64); 4] = [
    (FeedPair::EurUsd, 108_250_000),
    (FeedPair::UsdcUsd, 100_000_000),
    (FeedPair::UsdtUsd, 99_980_000),
    (FeedPair::EurcUsd, 108_200_000),
];
/// Tokens minted to every buyer, merchant wallet and the smart wallet: 1,000,000 units.
const MINT_MICROS: u128 = 1_000_000 * 1_000_000;

/// The private key of dev account `index` (`KEYS` holds well-formed hex).
pub fn key_bytes(index: usize) -> [u8; 32] {
    let mut raw = [0u8; 32];
    let _ = hex::decode_to_slice(KEYS[index], &mut raw);
    raw
}

pub fn address(index: usize) -> String {
    eip191::address_of_private_key(&key_bytes(index))
        .map(|a| a.to_string())
        .unwrap_or_default()
}

pub fn key(index: usize) -> String {
    format!("0x{}", KEYS[index])
}

pub struct DevChain {
    pub chain_id: u64,
    pub rpc_url: String,
    pub usdc: String,
    pub usdt: String,
    /// Dev EURC (D34): the same FiatToken-like contract as dev USDC, named as Base's EURC.
    pub eurc: String,
    pub checkout_router: String,
    pub subscription_manager: String,
    pub smart_wallet: String,
    pub deposit_factory: String,
    /// The dev stand-in for the sanctions oracle (`isSanctioned`), owned by `SANCTIONS_OWNER`.
    pub sanctions_oracle: String,
    /// The dev price feeds, by pair, in `PRICE_FEEDS`' order.
    pub price_feeds: Vec<(FeedPair, String)>,
    child: Child,
}

impl Drop for DevChain {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl DevChain {
    pub fn to_json(&self) -> Value {
        json!({
            "rpc_url": self.rpc_url,
            "usdc": self.usdc,
            "usdt": self.usdt,
            "eurc": self.eurc,
            "checkout_router": self.checkout_router,
            "subscription_manager": self.subscription_manager,
            "deposit_factory": self.deposit_factory,
            "treasury": address(TREASURY),
            "smart_wallet": { "address": self.smart_wallet, "owner_private_key": key(SMART_WALLET_OWNER) },
            "sanctions_oracle": { "address": self.sanctions_oracle, "owner_private_key": key(SANCTIONS_OWNER) },
            "price_feeds": self.price_feeds.iter().map(|(p, a)| (p.as_str().to_owned(), json!(a))).collect::<serde_json::Map<_, _>>(),
        })
    }

    /// `STABLEPAY_*` variables that point the service at this chain.
    pub fn service_env(&self) -> Vec<(String, String)> {
        let id = self.chain_id;
        vec![
            (format!("STABLEPAY_RPC_URL_{id}"), self.rpc_url.clone()),
            (format!("STABLEPAY_TOKEN_USDC_{id}"), self.usdc.clone()),
            (format!("STABLEPAY_TOKEN_USDT_{id}"), self.usdt.clone()),
            (format!("STABLEPAY_TOKEN_EURC_{id}"), self.eurc.clone()),
            (
                format!("STABLEPAY_CHECKOUT_ROUTER_{id}"),
                self.checkout_router.clone(),
            ),
            (
                format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"),
                self.subscription_manager.clone(),
            ),
            (format!("STABLEPAY_TREASURY_{id}"), address(TREASURY)),
            (
                format!("STABLEPAY_DEPOSIT_FACTORY_{id}"),
                self.deposit_factory.clone(),
            ),
            (
                format!("STABLEPAY_SANCTIONS_ORACLE_{id}"),
                self.sanctions_oracle.clone(),
            ),
        ]
        .into_iter()
        .chain(
            self.price_feeds
                .iter()
                .map(|(pair, feed)| (pair.feed_variable(id), feed.clone())),
        )
        .collect()
    }
}

pub fn rpc(url: &str, method: &str, params: Value) -> Result<Value, String> {
    let response: Value = ureq::post(url)
        .timeout(Duration::from_secs(10))
        .send_json(json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }))
        .map_err(|e| format!("{method}: {e}"))?
        .into_json()
        .map_err(|e| format!("{method}: {e}"))?;
    if let Some(err) = response.get("error") {
        return Err(format!("{method}: {err}"));
    }
    Ok(response["result"].clone())
}

fn artifact_bytecode(name: &str) -> Result<String, String> {
    let path = root().join(format!("contracts/out/{name}.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (run `cargo xtask contracts`)", path.display()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    json["bytecode"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{name}: no bytecode"))
}

fn word_address(addr: &str) -> String {
    format!("{:0>64}", addr.trim_start_matches("0x").to_lowercase())
}

fn word_uint(n: u128) -> String {
    format!("{n:064x}")
}

/// A string's dynamic ABI part: its length word, then its bytes padded to whole words.
fn abi_string(s: &str) -> String {
    let words = s.len().div_ceil(32).max(1);
    format!(
        "{}{:0<width$}",
        word_uint(s.len() as u128),
        hex::encode(s.as_bytes()),
        width = words * 64
    )
}

/// ABI encoding of `(string, string)`.
fn encode_two_strings(a: &str, b: &str) -> String {
    let first = abi_string(a);
    format!(
        "{}{}{}{}",
        word_uint(0x40),
        word_uint(0x40 + first.len() as u128 / 2),
        first,
        abi_string(b)
    )
}

pub(crate) fn send(
    url: &str,
    from: &str,
    to: Option<&str>,
    data: String,
) -> Result<String, String> {
    send_with_gas(url, from, to, data, 8_000_000)
}

/// `eth_sendTransaction` from an unlocked dev account with a gas limit of `gas`: the
/// benches keep it near what a call needs, so hundreds of them fit one block.
pub(crate) fn send_with_gas(
    url: &str,
    from: &str,
    to: Option<&str>,
    data: String,
    gas: u64,
) -> Result<String, String> {
    let mut tx = json!({ "from": from, "data": data, "gas": format!("{gas:#x}") });
    if let Some(to) = to {
        tx["to"] = json!(to);
    }
    rpc(url, "eth_sendTransaction", json!([tx]))?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "no tx hash".to_owned())
}

/// Mines a block and returns the receipts of `hashes`, failing on any revert.
pub(crate) fn mine_and_confirm(url: &str, hashes: &[String]) -> Result<Vec<Value>, String> {
    rpc(url, "evm_mine", json!([]))?;
    hashes
        .iter()
        .map(|h| {
            let receipt = rpc(url, "eth_getTransactionReceipt", json!([h]))?;
            if receipt["status"] != "0x1" {
                return Err(format!("transaction {h} failed: {receipt}"));
            }
            Ok(receipt)
        })
        .collect()
}

/// ABI encoding of the dev price feed's constructor `(uint8 decimals, int256 answer,
/// string description)`.
/// The dev answers are positive, so the int256 word is the plain number.
fn encode_feed_args(answer: u64, description: &str) -> String {
    format!(
        "{}{}{}{}",
        word_uint(8),
        word_uint(u128::from(answer)),
        word_uint(0x60),
        abi_string(description)
    )
}

/// The dev price feeds, deployed last so no earlier address moves: (pair, address).
fn deploy_feeds(url: &str) -> Result<Vec<(FeedPair, String)>, String> {
    let deployer = address(OPERATOR);
    let sent = PRICE_FEEDS
        .iter()
        .map(|(pair, answer)| {
            let data = artifact_bytecode("TestPriceFeed")?
                + &encode_feed_args(*answer, &pair.description());
            send(url, &deployer, None, data)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let receipts = mine_and_confirm(url, &sent)?;
    PRICE_FEEDS
        .iter()
        .zip(receipts)
        .map(|((pair, _), r)| {
            r["contractAddress"]
                .as_str()
                .map(|a| (*pair, a.to_owned()))
                .ok_or_else(|| "no contract address".to_owned())
        })
        .collect()
}

fn deploy_all(url: &str, chain_id: u64) -> Result<[String; 8], String> {
    let deployer = address(OPERATOR);
    let contract_address = |receipt: &Value| {
        receipt["contractAddress"]
            .as_str()
            .map(str::to_owned)
            .ok_or("no contract address")
    };
    // The dev tokens first, at the deployer's nonces 0 and 1 (the EIP-3009 vectors name the
    // dev USDC's address).
    let tokens = [
        artifact_bytecode("TestToken")? + &encode_two_strings("USD Coin", "USDC"),
        // Dev USDT has no EIP-3009 or EIP-2612 (as on Base): the approve + pay path stays exercised.
        artifact_bytecode("TestTetherToken")? + &encode_two_strings("Tether USD", "USDT"),
    ]
    .into_iter()
    .map(|d| send(url, &deployer, None, d))
    .collect::<Result<Vec<_>, _>>()?;
    let receipts = mine_and_confirm(url, &tokens)?;
    let (usdc, usdt) = (
        contract_address(&receipts[0])?,
        contract_address(&receipts[1])?,
    );
    // The service's contracts through the operators' own command's code (D27).
    let service = deploy_service_contracts(url, chain_id)?;
    let wallet = send(
        url,
        &deployer,
        None,
        artifact_bytecode("TestSmartWallet")? + &word_address(&address(SMART_WALLET_OWNER)),
    )?;
    let wallet = contract_address(&mine_and_confirm(url, &[wallet])?[0])?;
    // Last, so every address deployed before it stays where it was.
    let oracle = send(
        url,
        &deployer,
        None,
        artifact_bytecode("TestSanctionsOracle")? + &word_address(&address(SANCTIONS_OWNER)),
    )?;
    let oracle = contract_address(&mine_and_confirm(url, &[oracle])?[0])?;
    // After the oracle, for the same reason: Base's EURC is Circle's FiatToken, named "EURC".
    let eurc = send(
        url,
        &deployer,
        None,
        artifact_bytecode("TestToken")? + &encode_two_strings("EURC", "EURC"),
    )?;
    let eurc = contract_address(&mine_and_confirm(url, &[eurc])?[0])?;
    Ok([
        usdc,
        usdt,
        eurc,
        service.router.to_lower_hex(),
        service.manager.to_lower_hex(),
        wallet,
        service.factory.to_lower_hex(),
        oracle,
    ])
}

/// `stablepay-api contracts deploy`'s code, with the dev operator, keeper and treasury,
/// deployed by the operator's dev account, at depth 1 (dev chains never reorg).
fn deploy_service_contracts(
    url: &str,
    chain_id: u64,
) -> Result<stablepay_evm::deploy::Deployment, String> {
    use stablepay_domain::{Address, ChainId, PrivateKey};
    let parse = |a: String| Address::parse(&a).map_err(|e| e.to_string());
    let plan = stablepay_evm::deploy::DeployPlan {
        chain: ChainId::from_id(chain_id).ok_or("dev chains are 8453 and 84532")?,
        operator: parse(address(OPERATOR))?,
        keeper: parse(address(KEEPER))?,
        treasury: parse(address(TREASURY))?,
        confirmations: 1,
        router: None,
        manager: None,
        factory: None,
    };
    let deployer = PrivateKey::parse_hex(&key(OPERATOR)).map_err(|e| e.to_string())?;
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?
        .block_on(stablepay_evm::deploy::deploy_contracts(
            url,
            &deployer,
            &plan,
            |_| {},
        ))
}

fn fund(url: &str, tokens: &[&str], smart_wallet: &str) -> Result<(), String> {
    let mut holders: Vec<String> = BUYERS
        .iter()
        .chain(MERCHANTS.iter())
        .map(|i| address(*i))
        .collect();
    holders.push(smart_wallet.to_owned());
    let mut hashes = Vec::new();
    for token in tokens {
        for holder in &holders {
            // mint(address,uint256)
            let data = format!(
                "0x40c10f19{}{}",
                word_address(holder),
                word_uint(MINT_MICROS)
            );
            hashes.push(send(url, &address(OPERATOR), Some(token), data)?);
        }
    }
    mine_and_confirm(url, &hashes).map(|_| ())
}

/// Starts one anvil node, deploys and funds. Blocks every second (`--block-time 1`).
pub fn start(anvil: &std::path::Path, chain_id: u64) -> Result<DevChain, String> {
    // Port 0: anvil says where it listens (its per-call log lines are dropped).
    let (child, addr) = spawn_reporting(
        Command::new(anvil)
            .args(["--chain-id", &chain_id.to_string(), "--port", "0"])
            .args(["--block-time", "1"])
            .stderr(Stdio::null()),
        "Listening on ",
        false,
    )?;
    let rpc_url = format!("http://{addr}");
    let mut chain = DevChain {
        chain_id,
        rpc_url: rpc_url.clone(),
        usdc: String::new(),
        usdt: String::new(),
        eurc: String::new(),
        checkout_router: String::new(),
        subscription_manager: String::new(),
        smart_wallet: String::new(),
        deposit_factory: String::new(),
        sanctions_oracle: String::new(),
        price_feeds: Vec::new(),
        child,
    };
    let started = Instant::now();
    loop {
        match rpc(&rpc_url, "eth_chainId", json!([])) {
            Ok(id) if id.as_str() == Some(&format!("0x{chain_id:x}")) => break,
            Ok(id) => return Err(format!("anvil answered chain id {id}, expected {chain_id}")),
            Err(_) if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => return Err(format!("anvil at {addr} did not start: {e}")),
        }
    }
    let accounts = rpc(&rpc_url, "eth_accounts", json!([]))?;
    let expected = address(OPERATOR).to_lowercase();
    if accounts[0].as_str().map(str::to_lowercase) != Some(expected) {
        return Err(format!(
            "anvil's first account is {}, not the expected dev account",
            accounts[0]
        ));
    }
    let [usdc, usdt, eurc, router, manager, wallet, factory, oracle] =
        deploy_all(&rpc_url, chain_id)?;
    fund(&rpc_url, &[&usdc, &usdt, &eurc], &wallet)?;
    chain.usdc = usdc;
    chain.usdt = usdt;
    chain.eurc = eurc;
    chain.checkout_router = router;
    chain.subscription_manager = manager;
    chain.smart_wallet = wallet;
    chain.deposit_factory = factory;
    chain.sanctions_oracle = oracle;
    chain.price_feeds = deploy_feeds(&rpc_url)?;
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_two_strings_like_solidity() {
        let enc = encode_two_strings("USD Coin", "USDC");
        assert_eq!(enc.len(), 64 * 6);
        assert!(enc.starts_with(&(word_uint(0x40) + &word_uint(0x80))));
        assert_eq!(&enc[128..192], word_uint(8));
    }

    #[test]
    fn encodes_the_feed_constructor_like_solidity() {
        let enc = encode_feed_args(108_250_000, "EUR / USD");
        assert_eq!(enc.len(), 64 * 5);
        assert_eq!(&enc[..64], word_uint(8));
        assert_eq!(&enc[64..128], word_uint(108_250_000));
        assert_eq!(&enc[128..192], word_uint(0x60));
        assert_eq!(&enc[192..256], word_uint(9));
    }

    #[test]
    fn dev_accounts_are_the_known_ones() {
        assert_eq!(address(0), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
        assert_eq!(address(9), "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720");
    }
}
