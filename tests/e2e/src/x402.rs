//! Agents paying by x402 (D29) with the official SDK (`x402` from PyPI, which `cargo xtask
//! test` installs into `target/tools/x402`), driven through `agents/x402_agent.py`.

use base64::Engine;
use serde_json::{json, Value};

use crate::Stack;

use crate::test_env;

/// Runs the agent script with the SDK's Python: its stdout, trimmed.
pub async fn agent(args: &[&str]) -> String {
    let python = test_env()["x402_python"]
        .as_str()
        .expect("chains.json names no x402_python: run through `cargo xtask test`")
        .to_owned();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/agents/x402_agent.py");
    let owned: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .arg(script)
            .args(owned)
            .output()
    })
    .await
    .unwrap()
    .unwrap();
    assert!(
        out.status.success(),
        "x402_agent {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The SDK pays `url` with `key`: {"status", "payment_response", "body"}.
pub async fn sdk_pays(url: &str, key: &[u8; 32]) -> Value {
    let key = format!("0x{}", hex::encode(key));
    serde_json::from_str(&agent(&["pay", url, &key]).await).unwrap()
}

/// The `PAYMENT-SIGNATURE` header the SDK builds for `url`'s requirements, with the amount
/// moved by `delta` base units.
pub async fn sdk_signs(url: &str, key: &[u8; 32], delta: i64) -> String {
    let key = format!("0x{}", hex::encode(key));
    agent(&["sign", url, &key, &delta.to_string()]).await
}

/// The SDK's facilitator client (`HTTPFacilitatorClient`, Bearer `api_key`) against
/// `base`: `action` is `supported`, `verify`, `verify-tampered` or `settle`, for the payment
/// in `header` against what it accepted, with `payTo` moved to `pay_to` if given.
pub async fn sdk_facilitates(
    base: &str,
    api_key: &str,
    action: &str,
    header: &str,
    pay_to: Option<&str>,
) -> Value {
    let mut args = vec!["facilitator", base, api_key, action, header];
    args.extend(pay_to);
    serde_json::from_str(&agent(&args).await).unwrap()
}

/// A 12.5 USDC session: (id, x402_url), the URL checked to be the api's `/x402/:id`.
pub async fn x402_session(stack: &Stack) -> (String, String) {
    x402_session_in(stack, "USDC").await
}

/// The same in `currency` (a FiatToken: USDC or EURC).
pub async fn x402_session_in(stack: &Stack, currency: &str) -> (String, String) {
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Agent lunch", "amount": "12.5", "currency": currency }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let url = session["x402_url"]
        .as_str()
        .expect("an x402_url")
        .to_owned();
    assert_eq!(url, format!("{}/x402/{id}", stack.api));
    (id, url)
}

pub fn decoded(header: &str) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(header)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// GET an x402 resource with a `PAYMENT-SIGNATURE` (if any): (status, decoded
/// PAYMENT-REQUIRED or PAYMENT-RESPONSE, body).
pub async fn x402_exchange(
    http: reqwest::Client,
    url: String,
    signature: Option<String>,
) -> (u16, Value, Value) {
    let mut req = http.get(url);
    if let Some(signature) = signature {
        req = req.header("PAYMENT-SIGNATURE", signature);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let header = ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE"]
        .iter()
        .find_map(|h| res.headers().get(*h))
        .map(|v| decoded(v.to_str().unwrap()))
        .unwrap_or(Value::Null);
    (status, header, res.json().await.unwrap_or(Value::Null))
}

/// [`x402_exchange`] without the body.
pub async fn x402_get(
    http: reqwest::Client,
    url: String,
    signature: Option<String>,
) -> (u16, Value) {
    let (status, header, _) = x402_exchange(http, url, signature).await;
    (status, header)
}
