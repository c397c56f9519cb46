//! Prices in a currency (D34) on the test chain at a depth of 2: a euro price paid in EURC
//! (1:1) and in USDC at the dev EUR/USD feed's rate with the split exact; rates moved on a
//! test's own feeds between sessions; a depegged USDT refused; a stale feed a 503; an
//! expired quote that offers no way to pay.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::providers::Middleware;
use serde_json::{json, Value};
use stablepay_domain::FeedPair;
use stablepay_e2e::price_feeds::{deploy_feeds, with_feeds, Feed};
use stablepay_e2e::*;

async fn create(stack: &Stack, body: Value) -> (u16, Value) {
    stack.post("/api/v1/checkout/sessions", body).await
}

fn euros(amount: &str, token: Option<&str>) -> Value {
    let mut body = json!({ "mode": "payment", "title": "Tea", "price": { "amount": amount, "currency": "EUR" } });
    if let Some(token) = token {
        body["currency"] = json!(token);
    }
    body
}

/// Pays `session` by the router from a fresh buyer holding its token; waits for it.
async fn pay_by_router(stack: &Stack, session: &Value) -> Value {
    let id = session["id"].as_str().unwrap();
    let (status, intent) = stack.intent(id).await;
    assert_eq!(status, 200, "{intent}");
    let buyer = funded_buyer(&stack.chain).await;
    let me = format!("{:#x}", buyer.address());
    mint(
        &buyer,
        session["token_address"].as_str().unwrap(),
        &me,
        100_000_000,
    )
    .await;
    let tx = pay_intent(&buyer, &intent).await;
    stack.confirm(id, &tx).await;
    let done = stack
        .wait_for_session(id, "completed", Duration::from_secs(20))
        .await;
    assert_eq!(done["status"], "completed", "{done}");
    let payments = stack.payments_of(id).await;
    assert_eq!(payments.len(), 1, "{payments:?}");
    payments[0].clone()
}

fn micros(v: &Value) -> u64 {
    stablepay_domain::Amount::parse(v.as_str().unwrap())
        .unwrap()
        .micros()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_euro_price_is_paid_in_eurc_one_to_one_and_in_usdc_at_the_feeds_rate() {
    let stack = Stack::start().await;
    stack.fresh_verified_wallet().await;

    // No token named: EURC, 1:1, the peg checked on the EURC/USD feed, no expiry.
    let (status, eurc) = create(&stack, euros("20.00", None)).await;
    assert_eq!(status, 201, "{eurc}");
    assert_eq!(
        (eurc["currency"].as_str(), eurc["amount"].as_str()),
        (Some("EURC"), Some("20"))
    );
    assert_eq!(eurc["price"], json!({ "amount": "20", "currency": "EUR" }));
    assert_eq!(eurc["quote"]["pair"], "EURC/USD");
    assert_eq!(eurc["quote"]["rate"], "1");
    assert!(eurc["quote"]["expires_at"].is_null(), "{eurc}");
    let payment = pay_by_router(&stack, &eurc).await;
    assert_eq!(
        (payment["currency"].as_str(), payment["amount"].as_str()),
        (Some("EURC"), Some("20"))
    );

    // In USDC: × EUR/USD as the dev feed answers it, rounded up; the quote names the feed.
    let feed = stack
        .chain
        .price_feeds
        .iter()
        .find(|(p, _)| *p == FeedPair::EurUsd)
        .map(|(_, a)| a.clone())
        .unwrap();
    let (status, usdc) = create(&stack, euros("20.00", Some("USDC"))).await;
    assert_eq!(status, 201, "{usdc}");
    let quote = &usdc["quote"];
    assert_eq!(
        (quote["pair"].as_str(), usdc["currency"].as_str()),
        (Some("EUR/USD"), Some("USDC"))
    );
    assert_eq!(
        quote["feed"].as_str().unwrap().to_lowercase(),
        feed.to_lowercase()
    );
    let rate_e8 = (stablepay_domain::Amount::parse(quote["rate"].as_str().unwrap())
        .unwrap()
        .micros()) as u128;
    // The rate has at most 8 decimals; the dev feed's 1.0825 has 4.
    let expected = (20_000_000u128 * rate_e8 * 100).div_ceil(100_000_000);
    assert_eq!(u128::from(micros(&usdc["amount"])), expected, "{usdc}");
    let created = stablepay_domain::Timestamp::parse(usdc["created_at"].as_str().unwrap()).unwrap();
    let expires =
        stablepay_domain::Timestamp::parse(quote["expires_at"].as_str().unwrap()).unwrap();
    assert_eq!(expires.unix_seconds() - created.unix_seconds(), 1800);
    let payment = pay_by_router(&stack, &usdc).await;
    assert_eq!(payment["amount"], usdc["amount"]);
    assert_eq!(
        micros(&payment["fee_amount"]) + micros(&payment["merchant_amount"]),
        micros(&usdc["amount"])
    );
    // The ledger and its export carry the price and the quote beside the token amounts.
    let pay = payment["id"].as_str().unwrap();
    let entries = stack
        .get(&format!("/api/v1/balance_transactions?payment={pay}"))
        .await;
    let entry = &entries["data"][0];
    assert_eq!(
        (
            entry["price_amount"].as_str(),
            entry["price_currency"].as_str(),
            entry["quote_pair"].as_str(),
            entry["quote_rate"].as_str()
        ),
        (
            Some("20"),
            Some("EUR"),
            Some("EUR/USD"),
            quote["rate"].as_str()
        ),
        "{entry}"
    );
    let csv = stack
        .get_raw(&format!(
            "/api/v1/balance_transactions/export?payment={pay}"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        csv.starts_with("id,")
            && csv
                .lines()
                .next()
                .unwrap()
                .ends_with(",price_amount,price_currency,quote_pair,quote_rate"),
        "{csv}"
    );
    let rate = quote["rate"].as_str().unwrap();
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .ends_with(&format!(",20,EUR,EUR/USD,{rate}")),
        "{csv}"
    );
    // The session read back keeps the price and the quote.
    let read = stack
        .get(&format!(
            "/api/v1/checkout/sessions/{}",
            usdc["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(
        (read["price"].clone(), read["quote"].clone()),
        (usdc["price"].clone(), usdc["quote"].clone())
    );

    // Bad prices are named on their fields.
    for (body, field) in [
        (
            json!({ "mode": "payment", "title": "T", "price": { "amount": "5", "currency": "GBP" } }),
            "price.currency",
        ),
        (
            json!({ "mode": "payment", "title": "T", "price": { "amount": 5, "currency": "EUR" } }),
            "price.amount",
        ),
        (
            json!({ "mode": "payment", "title": "T", "price": "5 EUR" }),
            "price",
        ),
        (
            json!({ "mode": "payment", "title": "T", "amount": "5", "price": { "amount": "5", "currency": "EUR" } }),
            "price",
        ),
    ] {
        let (status, err) = create(&stack, body).await;
        assert_eq!(status, 400, "{err}");
        assert_eq!(err["error"]["details"][0]["field"], field, "{err}");
    }
}

/// A stack whose four feeds are its own, at the dev answers; `env` added.
async fn stack_with_own_feeds(env: &[(&str, &str)]) -> (Stack, Vec<Feed>) {
    let deployer = funded_buyer(&chain_info()).await;
    let feeds = deploy_feeds(
        &deployer,
        &[
            (FeedPair::EurUsd, 108_250_000),
            (FeedPair::UsdcUsd, 100_000_000),
            (FeedPair::UsdtUsd, 99_980_000),
            (FeedPair::EurcUsd, 108_200_000),
        ],
    )
    .await;
    let stack = Stack::start_with(StackOptions {
        chain: with_feeds(&chain_info(), &feeds),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..StackOptions::default()
    })
    .await;
    stack.fresh_verified_wallet().await;
    (stack, feeds)
}

fn feed(feeds: &[Feed], pair: FeedPair) -> &Feed {
    feeds.iter().find(|f| f.pair == pair).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn rates_moved_on_the_feeds_are_quoted_a_depeg_refused_and_a_stale_feed_is_a_503() {
    let (stack, feeds) =
        stack_with_own_feeds(&[("STABLEPAY_PRICE_FEED_HEARTBEAT_EUR_USD", "1h")]).await;
    let (_, first) = create(&stack, euros("20", Some("USDC"))).await;
    assert_eq!(first["amount"], "21.65", "{first}");
    // EUR/USD moves to 1.10: the next session is quoted at the new round.
    feed(&feeds, FeedPair::EurUsd).set(110_000_000).await;
    let (_, moved) = create(&stack, euros("20", Some("USDC"))).await;
    assert_eq!(moved["amount"], "22", "{moved}");
    assert_eq!(moved["quote"]["rate"], "1.1");
    assert_ne!(moved["quote"]["round_id"], first["quote"]["round_id"]);
    // EURC is measured against the euro: at 1.082 USD it is now 1.6 % under it, refused.
    let (status, err) = create(&stack, euros("5", None)).await;
    assert_eq!(
        (status, err["error"]["details"][0]["field"].as_str()),
        (400, Some("currency"))
    );
    // It follows the euro to 1.10 USD: on its peg again.
    feed(&feeds, FeedPair::EurcUsd).set(110_000_000).await;
    let (status, _) = create(&stack, euros("5", None)).await;
    assert_eq!(status, 201);
    // A dollar price in EURC divides by EUR/USD: 11 USD ÷ 1.10 = 10 EURC.
    let (_, eurc) = create(
        &stack,
        json!({ "mode": "payment", "title": "T", "price": { "amount": "11", "currency": "USD" }, "currency": "EURC" }),
    )
    .await;
    assert_eq!(eurc["amount"], "10", "{eurc}");

    // USDT at 0.98: refused on `currency`, for any price; USDC still quotes.
    feed(&feeds, FeedPair::UsdtUsd).set(98_000_000).await;
    let usd = |token: &str| json!({ "mode": "payment", "title": "T", "price": { "amount": "10", "currency": "USD" }, "currency": token });
    let (status, err) = create(&stack, usd("USDT")).await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["error"]["details"][0]["field"], "currency");
    assert!(
        err["error"]["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("0.98 USD"),
        "{err}"
    );
    let (status, ok) = create(&stack, usd("USDC")).await;
    assert_eq!((status, ok["amount"].as_str()), (201, Some("10")));

    // EUR/USD's last round two hours old (heartbeat 1h here): 503, Retry-After, no rate.
    let now = funded_buyer(&stack.chain)
        .await
        .get_block(ethers::types::BlockNumber::Latest)
        .await
        .unwrap()
        .unwrap()
        .timestamp
        .as_u64();
    feed(&feeds, FeedPair::EurUsd)
        .set_aged(110_000_000, now, 7_200)
        .await;
    let res = stack
        .http
        .post(format!("{}/api/v1/checkout/sessions", stack.api))
        .bearer_auth(&stack.key)
        .json(&euros("20", Some("USDC")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("retry-after").is_some());
    let body: Value = res.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("EUR/USD") && message.contains("heartbeat"),
        "{body}"
    );
    // A price needing no EUR/USD is unaffected.
    let (status, _) = create(&stack, usd("USDC")).await;
    assert_eq!(status, 201);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_quote_offers_no_way_to_pay() {
    let (stack, _feeds) = stack_with_own_feeds(&[("STABLEPAY_QUOTE_TTL", "3s")]).await;
    let (status, session) = create(&stack, euros("20", Some("USDC"))).await;
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let expires =
        stablepay_domain::Timestamp::parse(session["quote"]["expires_at"].as_str().unwrap())
            .unwrap()
            .unix_seconds();
    let page = || async {
        stack
            .get_raw(&format!("/pay/{id}"))
            .await
            .text()
            .await
            .unwrap()
    };
    // The hosted page shows the price and its rate beside the token amount, counting down
    // to the quote's end.
    let open = page().await;
    assert!(
        open.contains("Priced at 20.00 EUR · 1 EUR = 1.0825 USD (EUR/USD feed, round 1)"),
        "{open}"
    );
    assert!(
        open.contains(&format!("data-expires=\"{expires}\"")),
        "{open}"
    );
    assert!(open.contains("data-state=\"open\""), "{open}");
    // While the quote stands: an intent whose deadline is no later than the quote.
    let (status, intent) = stack.intent(&id).await;
    assert_eq!(status, 200, "{intent}");
    let deadline = intent["intent"]["deadline"]
        .as_i64()
        .expect("a unix deadline");
    assert!(deadline <= expires, "{deadline} > {expires}");

    // Once it lapsed: a clear 400 for an intent and an authorization, no x402 offer.
    let refused = poll(Duration::from_secs(15), || async {
        let (status, body) = stack.intent(&id).await;
        (status == 400).then_some(body)
    })
    .await
    .expect("the intent is refused once the quote lapsed");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("quote"),
        "{refused}"
    );
    let payer = "0x1111111111111111111111111111111111111111";
    let res = stablepay_e2e::one_signature::authorization(&stack, &id, payer).await;
    assert_eq!(res.status(), 400);
    let url = session["x402_url"].as_str().unwrap().to_owned();
    let (status, required, _) =
        stablepay_e2e::x402::x402_exchange(stack.http.clone(), url, None).await;
    assert_eq!(status, 402);
    assert_eq!(required["error"], "quote_expired");
    assert_eq!(required["accepts"], json!([]));
    // The page offers nothing at the old rate: no deposit address, no x402.
    let lapsed = page().await;
    assert!(lapsed.contains("data-state=\"quote-expired\""), "{lapsed}");
    assert!(!lapsed.contains("id=\"deposit-address\""), "{lapsed}");
    assert!(!lapsed.contains("id=\"x402-url\""), "{lapsed}");

    // It offers a fresh session at a new quote instead: same price, the rate now, naming
    // the session it replaces.
    assert!(
        lapsed.contains(&format!(
            "<form id=\"requote\" method=\"post\" action=\"/pay/{id}/requote\" >"
        )),
        "{lapsed}"
    );
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_redirects
        .post(format!("{}/pay/{id}/requote", stack.api))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303);
    let to = res.headers()["location"].to_str().unwrap().to_owned();
    let fresh_id = to.rsplit('/').next().unwrap().to_owned();
    assert!(
        to.ends_with(&format!("/pay/{fresh_id}")) && fresh_id != id,
        "{to}"
    );
    let fresh = stack
        .get(&format!("/api/v1/checkout/sessions/{fresh_id}"))
        .await;
    assert_eq!(fresh["requoted_from"], json!(id));
    assert_eq!(fresh["price"], session["price"]);
    assert_eq!(fresh["status"], "open");
    assert!(
        fresh["quote"]["expires_at"].as_str().unwrap()
            > session["quote"]["expires_at"].as_str().unwrap(),
        "{fresh}"
    );
}
