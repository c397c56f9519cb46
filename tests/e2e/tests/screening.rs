//! Screening payers (D33) on the paths where the service would send the money: one
//! signature, x402 and the merchant's facilitator. A payer the dev sanctions oracle (the
//! published `isSanctioned` interface, its list set by its owner here) or an imported list
//! names is refused with nothing relayed and its USDC where it was; an oracle that does
//! not answer refuses too (unknown is never clear); every answer is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ethers::types::Address as EthAddress;
use serde_json::Value;
use stablepay_domain::Address;
use stablepay_e2e::one_signature::{pay_with_signature, payer_without_eth};
use stablepay_e2e::screening::{oracle_address, oracle_owner};
use stablepay_e2e::x402::{sdk_facilitates, sdk_signs, x402_exchange, x402_session};
use stablepay_e2e::*;
use stablepay_evm::bindings::test_sanctions_oracle::TestSanctionsOracle;

/// The dev oracle on `chain`: its address and a client of its owner.
async fn oracle(chain: &PrivateChain) -> (String, TestSanctionsOracle<Client>) {
    (oracle_address(chain), oracle_owner(chain).await)
}

async fn list(oracle: &TestSanctionsOracle<Client>, who: Address, on: bool) {
    let who: EthAddress = who.to_string().parse().unwrap();
    let call = if on {
        oracle.add_to_sanctions_list(vec![who])
    } else {
        oracle.remove_from_sanctions_list(vec![who])
    };
    call.send().await.unwrap().await.unwrap();
    assert_eq!(oracle.is_sanctioned(who).call().await.unwrap(), on);
}

async fn screening_stack(chain: &PrivateChain, env: Vec<(&str, String)>) -> Stack {
    let mut options = StackOptions::on(chain);
    options
        .env
        .push(("STABLEPAY_SCREENING_MODES".into(), "test".into()));
    options
        .env
        .extend(env.into_iter().map(|(k, v)| (k.to_owned(), v)));
    let stack = Stack::start_with(options).await;
    stack.fresh_verified_wallet().await;
    stack
}

fn oracle_env(address: &str) -> (&'static str, String) {
    ("STABLEPAY_SANCTIONS_ORACLE_84532", address.to_owned())
}

/// Every stored check, oldest first: "path answer source".
async fn checks(stack: &Stack) -> Vec<String> {
    stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT path || ' ' || answer || ' ' || source || coalesce(' v' || list_version, '') AS value \
         FROM screening_checks ORDER BY id",
    )
    .await
    .unwrap()
}

async fn relayed(stack: &Stack) -> usize {
    stablepay_e2e::relaying::relays(stack).await.len()
}

/// The one-signature refusal: 400 on `payer`, with `message` in it.
fn refused_on_payer(status: u16, body: &Value, message: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "invalid_request_error", "{body}");
    assert_eq!(body["error"]["details"][0]["field"], "payer", "{body}");
    let text = body["error"]["message"].as_str().unwrap();
    assert!(text.contains(message), "{text}");
}

/// x402 on `GET /x402/:id` and the facilitator's verify and settle, for `key`'s payment of
/// a fresh session: all refused with `reason`.
async fn x402_refused(stack: &Stack, key: &[u8; 32], reason: &str) {
    let (_, url) = x402_session(stack).await;
    let header = sdk_signs(&url, key, 0).await;
    let (status, required, _) = x402_exchange(stack.http.clone(), url.clone(), Some(header)).await;
    assert_eq!(
        (status, &required["error"]),
        (402, &Value::from(reason)),
        "{required}"
    );
    let (_, url) = x402_session(stack).await;
    let header = sdk_signs(&url, key, 0).await;
    let base = format!("{}/api/v1/x402", stack.api);
    let verdict = sdk_facilitates(&base, &stack.key, "verify", &header, None).await;
    assert_eq!(verdict["isValid"], false, "{verdict}");
    assert_eq!(verdict["invalidReason"], reason, "{verdict}");
    let settled = sdk_facilitates(&base, &stack.key, "settle", &header, None).await;
    assert_eq!(settled["success"], false, "{settled}");
    assert_eq!(settled["errorReason"], reason, "{settled}");
}

#[tokio::test]
async fn a_payer_the_oracle_lists_is_refused_on_every_relay_path_with_nothing_sent() {
    let chain = PrivateChain::start(None).await;
    let (address, oracle) = oracle(&chain).await;
    let stack = screening_stack(&chain, vec![oracle_env(&address)]).await;
    let (minter, key, payer) = payer_without_eth(&stack, 40_000_000).await;
    list(&oracle, payer, true).await;

    let session = stack.open_session("12.5").await;
    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    refused_on_payer(status, &body, "sanctions list");
    x402_refused(&stack, &key, "payer_sanctioned").await;
    assert_eq!(
        relayed(&stack).await,
        0,
        "nothing was sent for a listed payer"
    );
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &payer.to_string()).await,
        40_000_000
    );
    assert_eq!(
        checks(&stack).await,
        [
            "one_signature listed sanctions_oracle",
            "x402 listed sanctions_oracle",
            "facilitator listed sanctions_oracle",
            "facilitator listed sanctions_oracle",
        ]
    );

    // Taken off the list, the same payer pays (the answer is read at each payment).
    list(&oracle, payer, false).await;
    let session = stack.open_session("12.5").await;
    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    assert_eq!(status, 202, "{body}");
    assert!(body["tx_hash"].is_string(), "{body}");
    assert_eq!(relayed(&stack).await, 1);
    assert_eq!(
        checks(&stack).await.last().map(String::as_str),
        Some("one_signature clear sanctions_oracle")
    );
}

#[tokio::test]
async fn an_oracle_that_does_not_answer_refuses_and_never_clears() {
    let chain = PrivateChain::start(None).await;
    let (address, _) = oracle(&chain).await;
    let proxy = FaultProxy::start(&chain.rpc).await;
    let mut options = StackOptions::on(&chain);
    options.service_rpc = Some(proxy.url.clone());
    options
        .env
        .push(("STABLEPAY_SCREENING_MODES".into(), "test".into()));
    options
        .env
        .push(("STABLEPAY_SANCTIONS_ORACLE_84532".into(), address.clone()));
    let stack = Stack::start_with(options).await;
    stack.fresh_verified_wallet().await;
    let (_, key, payer) = payer_without_eth(&stack, 40_000_000).await;
    let target: [u8; 20] = hex::decode(address.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap();
    proxy.inject(Faults {
        max_log_range: u64::MAX,
        fail_calls_to: Some(target),
        ..Faults::default()
    });
    let session = stack.open_session("12.5").await;
    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    refused_on_payer(status, &body, "could not be screened");
    x402_refused(&stack, &key, "payer_screening_unavailable").await;
    assert_eq!(relayed(&stack).await, 0);
    let stored = checks(&stack).await;
    assert_eq!(stored.len(), 4, "{stored:?}");
    assert!(stored.iter().all(|c| c.contains(" unknown ")), "{stored:?}");

    // The oracle answers again: the payer is clear and pays.
    proxy.inject(Faults {
        max_log_range: u64::MAX,
        ..Faults::default()
    });
    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(relayed(&stack).await, 1);
}

#[tokio::test]
async fn an_imported_list_of_10000_addresses_screens_every_relay_by_its_newest_version() {
    let chain = PrivateChain::start(None).await;
    let stack = screening_stack(
        &chain,
        vec![("STABLEPAY_SCREENING_LISTS", "ofac-eth".to_owned())],
    )
    .await;
    let (_, key, payer) = payer_without_eth(&stack, 40_000_000).await;
    let (_, clear_key, clear_payer) = payer_without_eth(&stack, 40_000_000).await;

    // A list never imported cannot say clear: every payer is refused.
    let session = stack.open_session("12.5").await;
    let (status, body) = pay_with_signature(&stack, &session, &clear_key, clear_payer).await;
    refused_on_payer(status, &body, "could not be screened");

    // 10,000 addresses, the payer among them (in OFAC's mixed case), one per line.
    let dir = std::env::temp_dir().join(format!("screening-{}", rand::random::<u64>()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = vec!["# sanctioned_addresses_ETH".to_owned()];
    lines.extend((0..9_999u32).map(|i| {
        let mut bytes = [0x77u8; 20];
        bytes[16..].copy_from_slice(&i.to_be_bytes());
        Address::from_bytes(bytes).to_string()
    }));
    lines.push(payer.to_string());
    let file = dir.join("sanctioned_addresses_ETH.txt");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let file = file.display().to_string();
    let import = |path: String| {
        let (ok, out, err) = stack.run_to_exit(
            "stablepay-api",
            &[
                "screening",
                "import",
                &path,
                "--source",
                "ofac-eth",
                "--json",
            ],
            &[],
        );
        assert!(ok, "{err}");
        serde_json::from_str::<Value>(out.trim()).unwrap()
    };
    let first = import(file.clone());
    assert_eq!(first["addresses"], 10_000, "{first}");
    assert_eq!(
        (first["version"].clone(), first["format"].clone()),
        (1.into(), "plain".into())
    );

    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    refused_on_payer(status, &body, "sanctions list (ofac-eth)");
    x402_refused(&stack, &key, "payer_sanctioned").await;
    let (status, body) = pay_with_signature(&stack, &session, &clear_key, clear_payer).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        relayed(&stack).await,
        1,
        "only the clear payer's payment was sent"
    );

    // Version 2 no longer lists the payer: lookups read it at once.
    lines.pop();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let second = import(file);
    assert_eq!(
        (second["version"].clone(), second["addresses"].clone()),
        (2.into(), 9_999.into())
    );
    let session = stack.open_session("12.5").await;
    let (status, body) = pay_with_signature(&stack, &session, &key, payer).await;
    assert_eq!(status, 202, "{body}");
    let stored = checks(&stack).await;
    assert_eq!(
        stored.first().map(String::as_str),
        Some("one_signature unknown ofac-eth")
    );
    assert_eq!(
        stored
            .iter()
            .filter(|c| c.as_str() == "x402 listed ofac-eth v1")
            .count(),
        1,
        "{stored:?}"
    );
    assert_eq!(
        stored.last().map(String::as_str),
        Some("one_signature clear ofac-eth v2")
    );
    let _ = std::fs::remove_dir_all(dir);
}
