//! The relayer is not a free gas tank (D30): a payer's relays that are not yet mined never
//! promise more than its balance, on the one-signature path and on x402; a payer whose
//! relay reverted on chain is refused for a cool-down while another payer pays the same
//! session at once; and an x402 payload is "the same payment" as a stored relay only when
//! every signed term and the signature are equal (a forged copy sharing `from` and `nonce`
//! is refused).
//!
//! Every test here fails on the service before D30: there, two relays of one gross were
//! both sent (the second reverting on chain, at the relayer's expense), a payer whose relay
//! reverted was relayed for again at once, and a copy with the payer's `from` and `nonce`
//! was "settled" with the genuine payment's transaction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::convert::Infallible;
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use stablepay_e2e::one_signature::{pay_with_signature, payer_without_eth};
use stablepay_e2e::relaying::*;
use stablepay_e2e::x402::{decoded, sdk_signs, x402_get, x402_session};
use stablepay_e2e::*;
use tokio::net::TcpListener;

/// A JSON-RPC endpoint in front of anvil that answers for "pending" as for "latest": a node
/// that does not see the mempool (Base's public RPC: the sequencer's mempool is private). A
/// relay waiting to be mined is then invisible to the next relay's simulation against the
/// pending block, so only the service's own record of what it promised can stop a second
/// relay of the same money; with anvil's own "pending", which applies the pool, the race
/// between the two requests would decide which check refuses.
struct NoMempoolRpc {
    url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for NoMempoolRpc {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl NoMempoolRpc {
    async fn start(upstream: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (upstream, http) = (upstream.to_owned(), reqwest::Client::new());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (upstream, http) = (upstream.clone(), http.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                        let (upstream, http) = (upstream.clone(), http.clone());
                        async move {
                            let body = req.into_body().collect().await.unwrap().to_bytes();
                            let mut call: Value = serde_json::from_slice(&body).unwrap();
                            latest_for_pending(&mut call);
                            let answer = http
                                .post(&upstream)
                                .json(&call)
                                .send()
                                .await
                                .unwrap()
                                .bytes()
                                .await
                                .unwrap();
                            Ok::<_, Infallible>(
                                Response::builder()
                                    .header("content-type", "application/json")
                                    .body(Full::new(Bytes::from(answer.to_vec())))
                                    .unwrap(),
                            )
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self { url, task }
    }
}

fn latest_for_pending(call: &mut Value) {
    match call {
        Value::Array(calls) => calls.iter_mut().for_each(latest_for_pending),
        Value::Object(fields) => {
            if let Some(Value::Array(params)) = fields.get_mut("params") {
                for param in params.iter_mut().filter(|p| *p == "pending") {
                    *param = json!("latest");
                }
            }
        }
        _ => {}
    }
}

fn lower(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_lowercase()
}

/// Fails before D30: the simulation cannot see the first relay (the node's pending is its
/// latest), so both relays were signed and sent, and the second reverted on chain.
#[tokio::test(flavor = "multi_thread")]
async fn one_gross_for_two_sessions_at_once_is_relayed_once_and_the_other_refused_on_its_promise() {
    let chain = PrivateChain::start(None).await;
    let rpc = NoMempoolRpc::start(&chain.rpc).await;
    let stack = Stack::start_with(StackOptions {
        service_rpc: Some(rpc.url.clone()),
        ..StackOptions::on(&chain)
    })
    .await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let first = stack.open_session("12.5").await;
    let second = stack.open_session("12.5").await;
    let (minter, key, payer) = payer_without_eth(&stack, 12_500_000).await;

    // Nothing is mined while both requests run: whichever relay is stored first is still
    // unmined when the other is judged.
    set_automine(&chain, false).await;
    let (a, b) = tokio::join!(
        pay_with_signature(&stack, &first, &key, payer),
        pay_with_signature(&stack, &second, &key, payer),
    );
    let (paid, open, refusal) = match (a.0, b.0) {
        (202, 400) => (&first, &second, b.1),
        (400, 202) => (&second, &first, a.1),
        _ => panic!("exactly one relay: {a:?} {b:?}"),
    };
    assert_eq!(
        refusal["error"]["type"], "invalid_request_error",
        "{refusal}"
    );
    assert_eq!(
        refusal["error"]["details"][0]["field"], "payer",
        "{refusal}"
    );
    let message = lower(&refusal["error"]["message"]);
    assert!(
        message.contains(&payer.to_string().to_lowercase()) && message.contains("promise"),
        "{refusal}"
    );
    assert_eq!(relays(&stack).await.len(), 1, "one relay was signed");

    chain.call("evm_mine", json!([])).await;
    set_automine(&chain, true).await;
    assert!(
        mine_until(&chain, || async {
            session_of(&stack, paid).await["status"] == "completed"
        })
        .await,
        "the relayed session completes at depth 2"
    );
    let payer_record = format!("mined {}", payer.to_lower_hex());
    assert!(
        mine_until(&chain, || async {
            relays(&stack).await == [payer_record.as_str()]
        })
        .await,
        "one relay, mined, nothing reverted: {:?}",
        relays(&stack).await
    );
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &recipient).await,
        12_375_000
    );
    let s = session_of(&stack, open).await;
    assert_eq!(
        (&s["status"], &s["amount_received"]),
        (&json!("open"), &json!("0"))
    );
    assert!(stack.payments_of(open).await.is_empty());

    // Mined, the relay promises nothing any more: topped up, the payer pays the other.
    mint(&minter, &stack.chain.usdc, &payer.to_string(), 12_500_000).await;
    let (status, sent) = pay_with_signature(&stack, open, &key, payer).await;
    assert_eq!(status, 202, "{sent}");
    assert!(
        mine_until(&chain, || async {
            session_of(&stack, open).await["status"] == "completed"
        })
        .await
    );
    assert!(
        mine_until(&chain, || async {
            relays(&stack).await == [payer_record.as_str(), payer_record.as_str()]
        })
        .await,
        "{:?}",
        relays(&stack).await
    );
}

/// The same on x402 (fails before D30 for the same reason: both transfers were sent).
#[tokio::test(flavor = "multi_thread")]
async fn one_gross_for_two_x402_sessions_at_once_is_relayed_once_and_the_other_refused() {
    let chain = PrivateChain::start(None).await;
    let rpc = NoMempoolRpc::start(&chain.rpc).await;
    let stack = Stack::start_with(StackOptions {
        service_rpc: Some(rpc.url.clone()),
        ..StackOptions::on(&chain)
    })
    .await;
    stack.fresh_verified_wallet().await;
    let (first, first_url) = x402_session(&stack).await;
    let (second, second_url) = x402_session(&stack).await;
    let (_, key, payer) = payer_without_eth(&stack, 12_500_000).await;
    let signatures = [
        sdk_signs(&first_url, &key, 0).await,
        sdk_signs(&second_url, &key, 0).await,
    ];
    let urls = [first_url, second_url];
    let ids = [first, second];

    set_automine(&chain, false).await;
    let calls: Vec<_> = (0..2)
        .map(|i| {
            let call = x402_get(
                stack.http.clone(),
                urls[i].clone(),
                Some(signatures[i].clone()),
            );
            tokio::spawn(call)
        })
        .collect();
    // The relayed request waits for a block nobody mines yet, so the first answer is the
    // refusal, or (on a machine slower than the 30 s wait) the relayed one's
    // `settlement_pending`; then the other is awaited without mining too.
    let (answer, i, rest) = futures_util::future::select_all(calls).await;
    let mut answers = [None, None];
    let other = rest.into_iter().next().unwrap();
    let pending = answer.as_ref().unwrap().1["error"] == "settlement_pending";
    answers[i] = Some(answer.unwrap());
    answers[1 - i] = Some(if pending {
        other.await.unwrap()
    } else {
        chain.call("evm_mine", json!([])).await;
        set_automine(&chain, true).await;
        assert!(mine_until(&chain, || async { other.is_finished() }).await);
        other.await.unwrap()
    });
    let answers = answers.map(Option::unwrap);
    let refused = answers
        .iter()
        .position(|(_, h)| h["error"] == "invalid_exact_evm_insufficient_balance")
        .unwrap_or_else(|| panic!("one is refused on the balance: {answers:?}"));
    let paid = 1 - refused;
    let (status, required) = &answers[refused];
    assert_eq!(*status, 402);
    assert_eq!(required["accepts"][0]["amount"], "12500000", "{required}");
    assert!(
        answers[paid].0 == 200 || answers[paid].1["error"] == "settlement_pending",
        "{answers:?}"
    );
    assert_eq!(relays(&stack).await.len(), 1, "one relay was signed");
    chain.call("evm_mine", json!([])).await;
    set_automine(&chain, true).await;
    // The relayed one, asked again with the same signature, answers with its transaction.
    let (status, response) = x402_get(
        stack.http.clone(),
        urls[paid].clone(),
        Some(signatures[paid].clone()),
    )
    .await;
    assert_eq!(status, 200, "{response}");
    assert_eq!(lower(&response["payer"]), payer.to_lower_hex());
    assert!(
        mine_until(&chain, || async {
            session_of(&stack, &ids[paid]).await["status"] == "completed"
        })
        .await
    );
    let payer_record = format!("mined {}", payer.to_lower_hex());
    assert!(
        mine_until(&chain, || async {
            relays(&stack).await == [payer_record.as_str()]
        })
        .await,
        "one relay, mined, nothing reverted: {:?}",
        relays(&stack).await
    );
    let s = session_of(&stack, &ids[refused]).await;
    assert_eq!(
        (&s["status"], &s["amount_received"]),
        (&json!("open"), &json!("0"))
    );
}

/// A genuine revert: the relay waits in the pool while the payer moves its USDC away with
/// a higher tip, which the block orders first, so the relay (simulated fine when sent)
/// reverts on chain. Fails before D30: the same payer was relayed for again at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_payer_whose_relay_reverted_cools_down_and_another_payer_pays_the_session_at_once() {
    let chain = PrivateChain::start(None).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let (recipient, _) = stack.fresh_verified_wallet().await;
    let session = stack.open_session("12.5").await;
    let (_, later_url) = x402_session(&stack).await;
    let (_, honest_key, honest) = payer_without_eth(&stack, 12_500_000).await;
    let (griefer_key, griefer_address, minter) = reverted_relay(&chain, &stack, &session).await;
    let reverted = format!("reverted {}", griefer_address.to_lower_hex());

    // Funded again, the griefer is refused on both paths, and nothing is sent for it.
    mint(
        &minter,
        &stack.chain.usdc,
        &griefer_address.to_string(),
        12_500_000,
    )
    .await;
    let (status, refusal) =
        pay_with_signature(&stack, &session, &griefer_key, griefer_address).await;
    assert_eq!(status, 400, "{refusal}");
    assert_eq!(
        refusal["error"]["details"][0]["field"], "payer",
        "{refusal}"
    );
    let message = lower(&refusal["error"]["message"]);
    assert!(
        message.contains("reverted") && message.contains(&griefer_address.to_lower_hex()),
        "{refusal}"
    );
    let header = sdk_signs(&later_url, &griefer_key, 0).await;
    let (status, required) = x402_get(stack.http.clone(), later_url, Some(header)).await;
    assert_eq!(status, 402, "{required}");
    assert_eq!(
        required["error"], "payer_cooling_down_after_revert",
        "{required}"
    );
    assert_eq!(relays(&stack).await, [reverted.as_str()]);

    // Another payer pays the same session at once.
    let (status, sent) = pay_with_signature(&stack, &session, &honest_key, honest).await;
    assert_eq!(status, 202, "{sent}");
    assert!(
        mine_until(&chain, || async {
            session_of(&stack, &session).await["status"] == "completed"
        })
        .await,
        "the other payer's relay completes the session at depth 2"
    );
    let done = session_of(&stack, &session).await;
    assert_eq!(lower(&done["wallet_address"]), honest.to_lower_hex());
    assert_eq!(done["tx_hash"], sent["tx_hash"]);
    let honest_record = format!("mined {}", honest.to_lower_hex());
    assert!(
        mine_until(&chain, || async {
            relays(&stack).await == [reverted.as_str(), honest_record.as_str()]
        })
        .await,
        "{:?}",
        relays(&stack).await
    );
    assert_eq!(stack.payments_of(&session).await.len(), 1);
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &recipient).await,
        12_375_000
    );
}

/// POST /api/v1/x402/{action} with the merchant's key: (status, body).
async fn facilitate(stack: &Stack, action: &str, payload: &Value) -> Value {
    let (status, answer) = stack
        .post(
            &format!("/api/v1/x402/{action}"),
            json!({
                "x402Version": 2,
                "paymentPayload": payload,
                "paymentRequirements": payload["accepted"],
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

/// Fails before D30: a copy was "the same payment" by `from` and `nonce` alone, so its
/// settle answered success with the genuine payment's transaction (and the resource 200).
#[tokio::test(flavor = "multi_thread")]
async fn a_forged_copy_sharing_from_and_nonce_is_not_the_settled_payment() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;
    let (id, url) = x402_session(&stack).await;
    let (minter, key, payer) = payer_without_eth(&stack, 20_000_000).await;
    let header = sdk_signs(&url, &key, 0).await;
    let genuine = decoded(&header);

    let settled = facilitate(&stack, "settle", &genuine).await;
    assert_eq!(settled["success"], true, "{settled}");
    let tx = settled["transaction"].clone();
    let done = stack
        .wait_for_session(&id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");

    let mut forged = genuine.clone();
    forged["payload"]["authorization"]["value"] = json!("1");
    forged["payload"]["signature"] = json!(format!("0x{}1b", "11".repeat(64)));
    assert_eq!(
        forged["payload"]["authorization"]["nonce"],
        genuine["payload"]["authorization"]["nonce"]
    );
    let verdict = facilitate(&stack, "verify", &forged).await;
    assert_eq!(verdict["isValid"], false, "{verdict}");
    let refused = facilitate(&stack, "settle", &forged).await;
    assert_eq!(refused["success"], false, "{refused}");
    assert_ne!(refused["transaction"], tx, "{refused}");
    let forged_header =
        base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&forged).unwrap());
    let (status, required) = x402_get(stack.http.clone(), url.clone(), Some(forged_header)).await;
    assert_eq!(status, 402, "{required}");

    // The genuine payment, sent again, is still recognised as itself.
    let again = facilitate(&stack, "settle", &genuine).await;
    assert_eq!(
        (&again["success"], &again["transaction"]),
        (&json!(true), &tx)
    );
    let payer_record = format!("mined {}", payer.to_lower_hex());
    let recorded = poll(Duration::from_secs(20), || async {
        (relays(&stack).await == [payer_record.as_str()]).then_some(())
    })
    .await;
    assert!(recorded.is_some(), "one relay: {:?}", relays(&stack).await);
    wait_for_blocks(&minter, 3).await;
    assert_eq!(relays(&stack).await, [payer_record.as_str()]);
    assert_eq!(stack.payments_of(&id).await.len(), 1);
    assert_eq!(
        usdc_balance(&minter, &stack.chain, &payer.to_string()).await,
        7_500_000
    );
}
