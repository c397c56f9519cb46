//! `cargo xtask bench gas`: gasUsed of every payment path on a fresh dev chain (anvil, the
//! committed contracts), against DESIGN §10's bars in units of "two warm ERC-20 transfers"
//! (sender and recipient both already holding the token): a router `pay` ≤ 1.25×, a
//! one-signature `payWithAuthorization` ≤ 1.8× (relayed: the payer holds no ETH; it spends
//! its ref, D30), a deposit sweep of a deployed forwarder ≤ 2× (the first sweep, which
//! deploys it, is reported). The operator's `cancel` of a ref (a relay's fill) is reported.
//! Then forge's gas of the Solidity unit tests, compared with the committed
//! `contracts/gas-snapshot`.

use serde_json::json;
use stablepay_domain::rules::deposit::DepositTerms;
use stablepay_domain::rules::eip3009::{ReceiveAuthorization, TokenDomain};
use stablepay_domain::rules::{eip191, eip712};
use stablepay_domain::{Address, CheckoutSessionId, Signature};

use crate::chain::{self, mine_and_confirm, rpc, send, DevChain};

fn addr(s: &str) -> Result<Address, String> {
    Address::parse(&s.to_lowercase()).map_err(|e| e.to_string())
}

/// Sends `data` from an unlocked dev account, mines it, and returns its gasUsed.
fn gas_of(dev: &DevChain, from: &str, to: &str, data: &[u8]) -> Result<u64, String> {
    let hash = send(
        &dev.rpc_url,
        from,
        Some(to),
        format!("0x{}", hex::encode(data)),
    )?;
    let receipts = mine_and_confirm(&dev.rpc_url, &[hash])?;
    let used = receipts[0]["gasUsed"].as_str().unwrap_or("0x0");
    u64::from_str_radix(used.trim_start_matches("0x"), 16).map_err(|e| e.to_string())
}

/// `transfer(to, amount)` or `mint(to, amount)` calldata.
fn token_call(selector: &str, to: &Address, amount: u128) -> Vec<u8> {
    let mut data = hex::decode(selector).unwrap_or_default();
    data.extend_from_slice(&[0u8; 12]);
    data.extend_from_slice(to.as_bytes());
    data.extend_from_slice(&[0u8; 16]);
    data.extend_from_slice(&amount.to_be_bytes());
    data
}

fn word(n: u128) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[16..].copy_from_slice(&n.to_be_bytes());
    w
}

fn block_time(dev: &DevChain) -> Result<u64, String> {
    let block = rpc(
        &dev.rpc_url,
        "eth_getBlockByNumber",
        json!(["latest", false]),
    )?;
    let ts = block["timestamp"].as_str().unwrap_or("0x0");
    u64::from_str_radix(ts.trim_start_matches("0x"), 16).map_err(|e| e.to_string())
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let anvil = crate::tools::anvil()?;
    let dev = chain::start(&anvil, 84532)?;
    let (usdc, router) = (addr(&dev.usdc)?, addr(&dev.checkout_router)?);
    let buyer = chain::address(chain::BUYERS[0]);
    let relayer = chain::address(chain::BUYERS[1]);
    let merchant = addr(&chain::address(chain::MERCHANTS[0]))?;
    let operator = chain::key_bytes(chain::OPERATOR);
    let router_domain = eip712::Domain {
        name: eip712::ROUTER_NAME,
        chain_id: dev.chain_id,
        verifying_contract: router,
    };
    let sign_intent = |intent: &eip712::PaymentIntent| -> Result<Signature, String> {
        eip712::sign(&router_domain, intent.struct_hash(), &operator).ok_or("signing".into())
    };
    let intent = |deadline: u64| eip712::PaymentIntent {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        token: usdc,
        recipient: merchant,
        net_amount: 9_900_000,
        fee_amount: 100_000,
        deadline,
    };

    // Two warm transfers: both parties already hold USDC (the first one warms nothing up
    // that the measured one would pay for: every account here was funded at start).
    let transfer = gas_of(
        &dev,
        &buyer,
        &dev.usdc,
        &token_call("a9059cbb", &merchant, 1),
    )?;
    let approve = gas_of(
        &dev,
        &buyer,
        &dev.usdc,
        &stablepay_evm::calldata::approve(&router, u128::MAX),
    )?;
    // The first `pay` also gives the treasury its first balance; the second is measured.
    let deadline = block_time(&dev)? + 3600;
    for _ in 0..1 {
        let first = intent(deadline);
        let sig = sign_intent(&first)?;
        gas_of(
            &dev,
            &buyer,
            &dev.checkout_router,
            &stablepay_evm::calldata::pay(&first, &sig),
        )?;
    }
    let paid = intent(deadline);
    let pay = gas_of(
        &dev,
        &buyer,
        &dev.checkout_router,
        &stablepay_evm::calldata::pay(&paid, &sign_intent(&paid)?),
    )?;

    // One signature: a fresh payer with USDC and no ETH; the relayer sends.
    let payer_key = eip712::session_ref(&CheckoutSessionId::generate());
    let payer = eip191::address_of_private_key(&payer_key).ok_or("payer key")?;
    gas_of(
        &dev,
        &relayer,
        &dev.usdc,
        &token_call("40c10f19", &payer, 50_000_000),
    )?;
    let one = intent(deadline);
    let auth = ReceiveAuthorization::paying(payer, router, &one);
    let domain = TokenDomain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: dev.chain_id,
        token: usdc,
    };
    let payer_sig = eip191::sign_hash(&auth.digest(&domain), &payer_key).ok_or("signing")?;
    let relayed = gas_of(
        &dev,
        &relayer,
        &dev.checkout_router,
        &stablepay_evm::calldata::pay_with_authorization(
            &one,
            &eip712::sign(&router_domain, one.payer_struct_hash(&payer), &operator)
                .ok_or("signing")?,
            &payer,
            deadline,
            &payer_sig,
        ),
    )?;
    // The fill of an unwanted relay (D26): the operator's `cancel` of a fresh ref, sent by
    // the relayer. The digest is the router's own `hashCancel(ref)`.
    let canceled = eip712::session_ref(&CheckoutSessionId::generate());
    let cancel_digest = rpc(
        &dev.rpc_url,
        "eth_call",
        json!([{
            "to": dev.checkout_router,
            "data": format!("0x7b8dd829{}", hex::encode(canceled)),
        }, "latest"]),
    )?;
    let mut digest = [0u8; 32];
    hex::decode_to_slice(
        cancel_digest
            .as_str()
            .unwrap_or_default()
            .trim_start_matches("0x"),
        &mut digest,
    )
    .map_err(|e| format!("hashCancel: {e}"))?;
    let cancel_sig = eip191::sign_hash(&digest, &operator).ok_or("signing")?;
    // cancel(bytes32 ref, bytes operatorSignature): the ref, the offset 0x40, the bytes.
    let mut cancel_call = hex::decode("302bacf3").unwrap_or_default();
    cancel_call.extend_from_slice(&canceled);
    cancel_call.extend_from_slice(&word(0x40));
    cancel_call.extend_from_slice(&word(cancel_sig.as_bytes().len() as u128));
    cancel_call.extend_from_slice(cancel_sig.as_bytes());
    // The bytes padded to whole words after the 4-byte selector.
    cancel_call.resize(4 + (cancel_call.len() - 4).div_ceil(32) * 32, 0);
    let cancel = gas_of(&dev, &relayer, &dev.checkout_router, &cancel_call)?;

    let payer_eth = rpc(
        &dev.rpc_url,
        "eth_getBalance",
        json!([payer.to_string(), "latest"]),
    )?;

    // A deposit (D24): a plain transfer to the session's address, then sweeps by anyone (the
    // relayer here) to a recipient that already holds the token.
    let factory = addr(&dev.deposit_factory)?;
    let terms = DepositTerms {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        token: usdc,
        recipient: merchant,
        fee_amount: 200_000,
        fee_bps: 100,
    };
    let deposit_at = terms.address(&factory);
    let mut sweep_gas = Vec::new();
    for part in [4_000_000, 16_000_000] {
        gas_of(
            &dev,
            &buyer,
            &dev.usdc,
            &token_call("a9059cbb", &deposit_at, part),
        )?;
        sweep_gas.push(gas_of(
            &dev,
            &relayer,
            &dev.deposit_factory,
            &stablepay_evm::calldata::sweep(&terms, &usdc),
        )?);
    }

    let two = 2.0 * transfer as f64;
    let rows: [(&str, u64, Option<f64>); 7] = [
        ("transfer (warm)", transfer, None),
        ("approve (first)", approve, None),
        ("pay (router, warm treasury)", pay, Some(1.25)),
        ("payWithAuthorization (relayed)", relayed, Some(1.8)),
        ("cancel (operator-signed fill)", cancel, None),
        ("deposit sweep (deploys forwarder)", sweep_gas[0], None),
        (
            "deposit sweep (forwarder deployed)",
            sweep_gas[1],
            Some(2.0),
        ),
    ];
    println!(
        "{:<34} {:>9} {:>12} {:>6}",
        "path", "gasUsed", "× 2 transfers", "bar"
    );
    let mut over = Vec::new();
    for (path, gas, bar) in rows {
        let ratio = gas as f64 / two;
        let bar_text = bar.map_or("—".to_owned(), |b| format!("≤ {b}"));
        println!("{path:<34} {gas:>9} {ratio:>12.2} {bar_text:>6}");
        if bar.is_some_and(|b| ratio > b) {
            over.push(path);
        }
    }
    println!(
        "one-signature payer's ETH after paying: {}; buyer transactions: approve + pay = 2, one signature = 0",
        payer_eth.as_str().unwrap_or("?")
    );
    if payer_eth != "0x0" {
        return Err("the one-signature payer spent ETH".into());
    }
    // The contracts' own unit tests against the committed snapshot (forge prints each
    // test's gas and its change; an unchanged contract shows no change).
    println!("\nforge snapshot --diff {}:", crate::tools::GAS_SNAPSHOT);
    println!("{}", crate::tools::forge_snapshot(false)?);
    match over.as_slice() {
        [] => Ok(()),
        paths => Err(format!("over DESIGN §10's gas bar: {}", paths.join(", "))),
    }
}
