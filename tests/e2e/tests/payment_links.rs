//! Payment links (D34) in a real Chromium at a depth of 2: a buyer opens a link priced in
//! euros and paid in USDC, lands on a fresh session's hosted page at the dev feed's rate,
//! pays with the browser wallet and lands on `success_url`. The rate moved on the feed
//! between steps quotes the next visitor's session anew while the buyer's (held by the
//! visit cookie) keeps its quote; the link's limit of one payment then stops new sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::{json, Value};
use stablepay_domain::FeedPair;
use stablepay_e2e::browser::{Browser, WalletScript};
use stablepay_e2e::price_feeds::{deploy_feeds, with_feeds};
use stablepay_e2e::receiver::Receiver;
use stablepay_e2e::subscriptions::reverify;
use stablepay_e2e::{funded_buyer, PrivateChain, Stack, StackOptions};

/// anvil's dev accounts #9 (the merchant's wallet) and #3 (a buyer holding USDC).
const MERCHANT_WALLET: &str = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
const MERCHANT_KEY: &str = "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
const BUYER: &str = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const WAIT: Duration = Duration::from_secs(60);

/// A visit without the buyer's cookie: the session it was sent to.
async fn other_visitor(url: &str) -> reqwest::Response {
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    no_redirects.get(url).send().await.unwrap()
}

#[tokio::test]
async fn a_buyer_pays_a_euro_link_in_usdc_and_its_limit_then_closes_it() {
    let chain = PrivateChain::start(Some(1)).await;
    // The link's own feeds on this chain, so the test can move EUR/USD.
    let deployer = funded_buyer(&chain.info()).await;
    let feeds = deploy_feeds(
        &deployer,
        &[
            (FeedPair::EurUsd, 108_250_000),
            (FeedPair::UsdcUsd, 100_000_000),
            (FeedPair::UsdtUsd, 100_000_000),
            (FeedPair::EurcUsd, 108_200_000),
        ],
    )
    .await;
    let stack = Stack::start_with(StackOptions {
        chain: with_feeds(&chain.info(), &feeds),
        ..StackOptions::on(&chain)
    })
    .await;
    let mut key = [0u8; 32];
    hex::decode_to_slice(MERCHANT_KEY, &mut key).unwrap();
    reverify(&stack, MERCHANT_WALLET, &key).await;
    let receiver = Receiver::start().await;

    let (status, link) = stack
        .post(
            "/api/v1/payment_links",
            json!({
                "name": "Espresso beans",
                "price": {"amount": "20.00", "currency": "EUR"},
                "currency": "USDC",
                "success_url": format!("{}/thanks", receiver.base),
                "completed_limit": 1,
            }),
        )
        .await;
    assert_eq!(status, 201, "{link}");
    let id = link["id"].as_str().unwrap().to_owned();
    let url = format!("{}/link/{id}", stack.api);

    // The buyer opens the link: a fresh session's hosted page at 20 × 1.0825.
    let buyer = Browser::start(
        &[WalletScript {
            accounts: vec![BUYER.to_owned()],
            rpcs: vec![(chain.chain_id, chain.rpc.clone())],
            start_chain: chain.chain_id,
            announce_as: None,
            sign_only: false,
        }],
        390,
    )
    .await;
    buyer.goto(&url).await;
    buyer.wait_for_text("#amount", "21.65 USDC", WAIT).await;
    assert!(buyer.path().await.starts_with("/pay/cs_"));
    assert!(buyer.text("#price").await.contains("20.00 EUR"));
    let session = buyer.path().await.trim_start_matches("/pay/").to_owned();

    // EUR/USD moves to 1.10: the next visitor is quoted anew; the buyer keeps theirs.
    feeds
        .iter()
        .find(|f| f.pair == FeedPair::EurUsd)
        .unwrap()
        .set(110_000_000)
        .await;
    let res = other_visitor(&url).await;
    assert_eq!(res.status(), 303);
    let other = res.headers()["location"]
        .to_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    assert_ne!(other, session);
    let quoted = stack
        .get(&format!("/api/v1/checkout/sessions/{other}"))
        .await;
    assert_eq!(
        (quoted["amount"].as_str(), quoted["payment_link"].as_str()),
        (Some("22"), Some(id.as_str()))
    );
    buyer.goto(&url).await;
    buyer.wait_for_text("#amount", "21.65 USDC", WAIT).await;
    assert_eq!(
        buyer.path().await,
        format!("/pay/{session}"),
        "the visit cookie keeps the buyer's session"
    );

    // The buyer pays with the wallet and lands on the link's success URL.
    buyer.click("#pay").await;
    buyer
        .wait_for_path("/thanks", Duration::from_secs(90))
        .await;
    let done = stack
        .get(&format!("/api/v1/checkout/sessions/{session}"))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let read: Value = stack.get(&format!("/api/v1/payment_links/{id}")).await;
    assert_eq!(read["completed_count"], 1);

    // One payment was its limit: the next visitor gets a page saying so, no session.
    let res = other_visitor(&url).await;
    assert_eq!(res.status(), 410);
    assert!(res.text().await.unwrap().contains("reached its limit"));
    buyer.goto(&url).await;
    buyer
        .wait_for_text("#status", "reached its limit", WAIT)
        .await;
    buyer.close().await;
}
