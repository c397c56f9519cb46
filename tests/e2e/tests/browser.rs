//! The dashboard and the hosted checkout in a real Chromium, with a scripted EIP-1193
//! wallet signing through anvil's dev accounts: a merchant signs in, verifies a wallet by
//! signing, manages keys and webhooks, sells through a payment link, and refunds from the
//! browser wallet; the API and the chain are compared afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use stablepay_e2e::browser::{sign_in, Browser, WalletScript};
use stablepay_e2e::receiver::Receiver;
use stablepay_e2e::subscriptions::reverify;
use stablepay_e2e::{client_for, poll, usdc_balance, PrivateChain, Stack, StackOptions};

/// anvil's dev account #9: the merchant's settlement wallet (unlocked on the node).
const MERCHANT_WALLET: &str = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
const MERCHANT_KEY: &str = "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6";
/// anvil's dev account #3: a funded buyer.
const BUYER: &str = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const WAIT: Duration = Duration::from_secs(60);

/// Where a screenshot goes: `target/screenshots/` on every run (the test command leaves the
/// checkout as it found it); the committed `docs/screenshots/` only when
/// `STABLEPAY_UPDATE_SCREENSHOTS=1` asks to refresh them on purpose.
fn screenshot(name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = if std::env::var_os("STABLEPAY_UPDATE_SCREENSHOTS").is_some() {
        root.join("docs/screenshots")
    } else {
        root.join("target/screenshots")
    };
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn wallet(account: &str, chain: &PrivateChain) -> WalletScript {
    WalletScript {
        accounts: vec![account.to_owned()],
        rpcs: vec![(chain.chain_id, chain.rpc.clone())],
        // Mainnet Ethereum: the page has to ask for the switch.
        start_chain: 1,
        announce_as: None,
        sign_only: false,
    }
}

async fn get(stack: &Stack, key: &str, path: &str) -> (u16, Value) {
    let res = stack
        .http
        .get(format!("{}/api/v1{path}", stack.api))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    (
        res.status().as_u16(),
        res.json().await.unwrap_or(Value::Null),
    )
}

/// Keys, webhooks and wallet verification by signing; CSRF and sign-out in a browser.
#[tokio::test]
async fn a_merchant_manages_keys_webhooks_and_wallets_in_the_dashboard() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let receiver = Receiver::start().await;
    let b = Browser::start(&[wallet(MERCHANT_WALLET, &chain)], 1280).await;
    sign_in(&b, &stack).await;
    let base = format!("{}/dashboard/test", stack.api);

    // Wallets: register, then sign the challenge with the browser wallet (EIP-191).
    b.goto(&format!("{base}/wallets")).await;
    b.click("[data-wallet-action=fill-address]").await;
    b.click("#register-form button[type=submit]").await;
    b.wait_for("#challenge-message").await;
    b.click("#sign-challenge").await;
    b.wait_for_text(".notice", "verified", WAIT).await;
    let wallets = stack.get("/api/v1/wallets").await;
    assert_eq!(
        wallets["data"][0]["address"]
            .as_str()
            .unwrap()
            .to_lowercase(),
        MERCHANT_WALLET.to_lowercase()
    );
    assert_eq!(wallets["data"][0]["status"], "verified");
    let calls = b
        .client
        .execute("return window.ethereum.calls", vec![])
        .await
        .unwrap();
    assert!(
        calls.as_array().unwrap().contains(&json!("personal_sign")),
        "{calls}"
    );

    // API keys: the secret shows once and works; revoked, the API answers 401.
    b.goto(&format!("{base}/developers/api_keys")).await;
    b.click("#create-key").await;
    let secret = b.text("#new-key-secret").await;
    assert!(secret.starts_with("svc_sk_test_"));
    assert_eq!(get(&stack, &secret, "/checkout/sessions").await.0, 200);
    b.goto(&format!("{base}/developers/api_keys")).await;
    assert!(!b.source().await.contains(&secret), "shown only once");
    b.client
        .execute("window.confirm = () => true", vec![])
        .await
        .unwrap();
    let last4 = &secret[secret.len() - 4..];
    let revoke = format!("//tr[.//code[contains(., '{last4}')]]//button[contains(., 'Revoke')]");
    b.client
        .find(fantoccini::Locator::XPath(&revoke))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_for_text(".notice", "revoked", WAIT).await;
    let (status, body) = get(&stack, &secret, "/checkout/sessions").await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "authentication_error");

    // Webhooks: create (secret once), send a test event, see it delivered, resend it.
    b.goto(&format!("{base}/developers/webhooks")).await;
    b.fill("#endpoint-url", &format!("{}/hooks", receiver.base))
        .await;
    b.click("#endpoint-form button[type=submit]").await;
    let whsec = b.text("#endpoint-secret").await;
    assert!(whsec.starts_with("whsec_"));
    b.click("#new-endpoint a").await;
    b.click("#send-test").await;
    b.wait_for_text(".notice", "test event", WAIT).await;
    let endpoint_page = b.path().await;
    let delivered = poll(WAIT, || async {
        b.goto(&format!("{}{}", stack.api, endpoint_page)).await;
        let row = b.text("#deliveries tbody tr").await;
        row.contains("succeeded").then_some(row)
    })
    .await
    .expect("the test event was delivered");
    assert!(
        delivered.contains("payment.succeeded") && delivered.contains("200"),
        "{delivered}"
    );
    b.click("#deliveries tbody tr a").await;
    b.wait_for("#payload").await;
    b.click("#resend").await;
    b.wait_for_text(".notice", "redelivery", WAIT).await;
    assert!(b.source().await.contains("Resend of"));
    let both = poll(WAIT, || async {
        let d = receiver.deliveries();
        (d.len() >= 2).then_some(d)
    })
    .await
    .expect("the resend arrived");
    assert_eq!(both[0].body, both[1].body, "a resend is the same bytes");
    assert!(both.iter().all(|d| d.signature.contains("v1=")));

    // A form posted without its CSRF token is refused.
    b.goto(&format!("{base}/developers/api_keys")).await;
    b.client
        .execute(
            "document.getElementById('create-key').form.querySelector('input[name=csrf]').remove()",
            vec![],
        )
        .await
        .unwrap();
    let keys_before = stack.store_keys().await;
    b.click("#create-key").await;
    b.wait_for_text("h1", "Form expired", WAIT).await;
    assert_eq!(stack.store_keys().await, keys_before, "nothing was created");

    // Signed out, the session cookie is refused.
    b.goto(&base).await;
    let cookie = b
        .cookie("__Host-stablepay_session")
        .await
        .expect("session cookie");
    b.click("#logout").await;
    b.wait_for_path("/dashboard/login", WAIT).await;
    assert!(b.cookie("__Host-stablepay_session").await.is_none());
    let replay = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(&base)
        .header("cookie", format!("__Host-stablepay_session={cookie}"))
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), 303);
    b.close().await;
}

/// A payment link sold through the hosted page (switch chain, approve, pay, "paid",
/// success_url), then refunded from the dashboard with the browser wallet.
#[tokio::test]
async fn a_payment_link_is_paid_on_the_hosted_page_and_refunded_from_the_dashboard() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let receiver = Receiver::start().await;
    verify_merchant_wallet(&stack).await;
    let merchant = Browser::start(&[wallet(MERCHANT_WALLET, &chain)], 1280).await;
    sign_in(&merchant, &stack).await;
    let base = format!("{}/dashboard/test", stack.api);

    // A payment link from the form.
    merchant.goto(&format!("{base}/checkout_sessions")).await;
    merchant
        .fill("#session-form input[name=title]", "Espresso beans")
        .await;
    merchant
        .fill("#session-form input[name=amount]", "24.9")
        .await;
    merchant
        .fill(
            "#session-form input[name=success_url]",
            &format!("{}/thanks", receiver.base),
        )
        .await;
    merchant.click("#session-form button[type=submit]").await;
    let url = merchant.text("#hosted-url").await;
    assert!(url.starts_with(&format!("{}/pay/cs_", stack.api)), "{url}");

    // The buyer pays on the hosted page, at phone width.
    let buyer = Browser::start(&[wallet(BUYER, &chain)], 390).await;
    buyer.goto(&url).await;
    buyer.wait_for_text("#amount", "24.90 USDC", WAIT).await;
    assert_eq!(
        buyer.text("#merchant").await,
        "E2E",
        "the merchant's display name"
    );
    assert!(buyer.text(".test-banner").await.contains("TEST MODE"));
    buyer.wait_for_text("#time-left", "left", WAIT).await;
    buyer.screenshot(&screenshot("hosted-checkout.png")).await;
    let mut key = [0u8; 32];
    hex::decode_to_slice(MERCHANT_KEY, &mut key).unwrap();
    let buyer_client = client_for(&stack.chain, &key).await;
    let before = usdc_balance(&buyer_client, &stack.chain, MERCHANT_WALLET).await;
    // By keyboard: focus the button and press Enter.
    buyer
        .wait_for("#pay")
        .await
        .send_keys("\u{e007}")
        .await
        .unwrap();
    buyer
        .wait_for_path("/thanks", Duration::from_secs(90))
        .await;
    assert!(buyer.source().await.contains("Thanks for your order"));
    let after = usdc_balance(&buyer_client, &stack.chain, MERCHANT_WALLET).await;
    assert_eq!(
        after - before,
        24_651_000,
        "24.90 less the 1 % fee reached the wallet"
    );
    buyer.close().await;

    // The dashboard shows the payment; the merchant refunds 3 from the browser wallet.
    let session = url.rsplit('/').next().unwrap().to_owned();
    let payments = stack.payments_of(&session).await;
    assert_eq!(payments.len(), 1);
    assert_eq!(payments[0]["status"], "confirmed");
    let pay = payments[0]["id"].as_str().unwrap().to_owned();
    merchant.goto(&base).await;
    merchant
        .wait_for_text("[data-stat=gross]", "24.90 USDC", WAIT)
        .await;
    merchant.screenshot(&screenshot("dashboard-home.png")).await;
    merchant.goto(&format!("{base}/payments/{pay}")).await;
    merchant.fill("#refund-amount", "3").await;
    merchant.fill("#refund-reason", "one bag was damaged").await;
    merchant.click("#refund-send").await;
    merchant
        .wait_for_text(".notice", "refund was verified", Duration::from_secs(90))
        .await;
    let refunds = merchant.text("#refunds").await;
    assert!(
        refunds.contains("3.00 USDC") && refunds.contains("one bag was damaged"),
        "{refunds}"
    );
    merchant
        .screenshot(&screenshot("dashboard-payment.png"))
        .await;

    // The ledger page shows the payment in and the refund out, and its download is the
    // same entries as CSV, oldest first.
    merchant.goto(&format!("{base}/balance")).await;
    let ledger = merchant.wait_for_text("#balance", "-3.00 USDC", WAIT).await;
    assert!(
        ledger.contains("payment") && ledger.contains("24.90 USDC"),
        "{ledger}"
    );
    let export = merchant
        .wait_for("#export")
        .await
        .attr("href")
        .await
        .unwrap()
        .expect("a download link");
    let cookie = merchant
        .cookie("__Host-stablepay_session")
        .await
        .expect("session cookie");
    let csv = stack
        .http
        .get(format!("{}{export}", stack.api))
        .header("cookie", format!("__Host-stablepay_session={cookie}"))
        .send()
        .await
        .unwrap();
    assert_eq!(csv.headers()["content-type"], "text/csv; charset=utf-8");
    let csv = csv.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("id,type,source,payment,amount,fee,net,"),
        "{csv}"
    );
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(
        lines[1].contains(",payment,") && lines[1].contains(",24.9,"),
        "{csv}"
    );
    assert!(
        lines[2].contains(",refund,") && lines[2].contains(",-3,"),
        "{csv}"
    );

    // The API and the chain agree with the page.
    let list = stack.get(&format!("/api/v1/refunds?payment={pay}")).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["amount"], "3");
    assert_eq!(
        list["data"][0]["to_address"]
            .as_str()
            .unwrap()
            .to_lowercase(),
        BUYER.to_lowercase()
    );
    let payment = stack.get(&format!("/api/v1/payments/{pay}")).await;
    assert_eq!(payment["refunded_amount"], "3");
    let refunded = usdc_balance(&buyer_client, &stack.chain, MERCHANT_WALLET).await;
    assert_eq!(
        after - refunded,
        3_000_000,
        "the refund left the settlement wallet"
    );
    merchant.close().await;
}

async fn verify_merchant_wallet(stack: &Stack) {
    let mut key = [0u8; 32];
    hex::decode_to_slice(MERCHANT_KEY, &mut key).unwrap();
    reverify(stack, MERCHANT_WALLET, &key).await;
}

trait StoreKeys {
    async fn store_keys(&self) -> usize;
}

impl StoreKeys for Stack {
    async fn store_keys(&self) -> usize {
        use stablepay_domain::ports::ApiKeyManager;
        self.store.keys(self.merchant).await.unwrap().len()
    }
}

/// anvil's dev account #4: it holds USDC; the test takes its ETH away.
const SIGNER: &str = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";

/// Two wallets announce themselves by EIP-6963 and there is no `window.ethereum`; the buyer
/// picks the one holding USDC and no ETH, which can only sign: the page pays with one
/// signature (the service's relayer sends it) and lands on `success_url`.
#[tokio::test]
async fn one_signature_pays_from_a_chosen_wallet_that_holds_no_eth() {
    let chain = PrivateChain::start(Some(1)).await;
    chain.call("anvil_setBalance", json!([SIGNER, "0x0"])).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let receiver = Receiver::start().await;
    verify_merchant_wallet(&stack).await;
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Grinder", "amount": "12.5",
                    "success_url": format!("{}/thanks", receiver.base) }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let announced = |name: &str, account: &str, sign_only: bool| WalletScript {
        announce_as: Some(name.to_owned()),
        sign_only,
        ..wallet(account, &chain)
    };
    let buyer = Browser::start(
        &[
            announced("Spending Wallet", BUYER, false),
            announced("Signing Wallet", SIGNER, true),
        ],
        390,
    )
    .await;
    buyer.goto(session["url"].as_str().unwrap()).await;
    buyer
        .wait_for_text("#pay-signature", "one signature, no gas", WAIT)
        .await;
    let merchant_client = client_for(&stack.chain, &[0x11; 32]).await;
    let before = usdc_balance(&merchant_client, &stack.chain, MERCHANT_WALLET).await;
    buyer.click("#pay-signature").await;
    // Two wallets announced: the page asks which one.
    buyer
        .wait_for_text("#status", "choose the one to pay with", WAIT)
        .await;
    buyer.click("button[data-wallet='Signing Wallet']").await;
    buyer
        .wait_for_path("/thanks", Duration::from_secs(90))
        .await;
    assert_eq!(
        usdc_balance(&merchant_client, &stack.chain, MERCHANT_WALLET).await - before,
        12_375_000,
        "12.50 less the 1 % fee reached the merchant's wallet"
    );
    let eth = chain
        .call("eth_getBalance", json!([SIGNER, "latest"]))
        .await;
    assert_eq!(eth, json!("0x0"), "the buyer paid no gas");
    buyer.close().await;
}

/// D24 on the hosted page: the plain-transfer panel shows the deposit address, the exact
/// amount and network, a QR code of the EIP-681 request, and progress as transfers arrive.
#[tokio::test(flavor = "multi_thread")]
async fn the_deposit_panel_shows_address_amount_qr_and_progress_as_a_transfer_arrives() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    verify_merchant_wallet(&stack).await;
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Kettle", "amount": "20" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let deposit = session["deposit_address"].as_str().unwrap().to_owned();
    let page = Browser::start(&[], 390).await;
    page.goto(session["url"].as_str().unwrap()).await;
    assert_eq!(page.text("#deposit-address").await, deposit);
    assert_eq!(page.text("#deposit-amount").await, "20.00 USDC");
    page.wait_for("#deposit-qr svg").await;
    let uri = page
        .source()
        .await
        .contains(&format!("/transfer?address={deposit}&amp;uint256=20000000"));
    assert!(uri, "the EIP-681 request names the address and base units");
    assert!(page
        .text("#deposit")
        .await
        .contains("Send only USDC on Base Sepolia"));

    let buyer = stablepay_e2e::funded_buyer(&stack.chain).await;
    stablepay_e2e::transfer(&buyer, &stack.chain.usdc, &deposit, 4_000_000).await;
    page.wait_for_text(
        "#deposit-progress",
        "4.00 USDC of 20.00 USDC received",
        WAIT,
    )
    .await;
    assert_eq!(
        page.text("#deposit-amount").await,
        "16.00 USDC",
        "what is left to send"
    );
    page.screenshot(&screenshot("hosted-deposit.png")).await;
    // One more than what is left: the payment is overpaid by 1.
    stablepay_e2e::transfer(&buyer, &stack.chain.usdc, &deposit, 17_000_000).await;
    page.wait_for_text("#status", "Paid", WAIT).await;
    page.close().await;

    // The merchant sees what arrived, the overpayment (offered as the refund) and the sweep.
    let merchant = Browser::start(&[], 1200).await;
    sign_in(&merchant, &stack).await;
    let base = format!("{}/dashboard/test", stack.api);
    merchant.goto(&format!("{base}/checkout_sessions")).await;
    merchant
        .wait_for_text(".received", "21.00 USDC received · overpaid", WAIT)
        .await;
    let id = session["id"].as_str().unwrap();
    let pay = stack.payments_of(id).await[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let swept = poll(WAIT, || async {
        merchant.goto(&format!("{base}/payments/{pay}")).await;
        let rows = merchant.text("#deposits").await;
        (!rows.contains("waiting")).then_some(rows)
    })
    .await
    .expect("both transfers are swept");
    assert!(
        swept.contains("4.00 USDC") && swept.contains("17.00 USDC"),
        "{swept}"
    );
    assert_eq!(
        merchant.text("#overpaid").await.split(' ').next(),
        Some("1.00")
    );
    assert!(
        merchant
            .source()
            .await
            .contains("id=\"refund-amount\" value=\"1\""),
        "the excess is the refund offered"
    );
    merchant.close().await;
}

/// anvil's dev account #4: a customer owed a refund, who confirms their address by signing.
const CUSTOMER: &str = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";

#[tokio::test(flavor = "multi_thread")]
async fn a_customer_confirms_where_a_refund_goes_and_the_merchant_pays_it_there() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    verify_merchant_wallet(&stack).await;
    let (_, payment, _) = stablepay_e2e::paid_session(&stack, "10").await;
    let pay = payment["id"].as_str().unwrap().to_owned();
    let ask = |amount: &str| {
        let (stack, pay, amount) = (&stack, pay.clone(), amount.to_owned());
        async move {
            let (status, r) = stack
                .post(
                    "/api/v1/refund_requests",
                    json!({ "payment": pay, "amount": amount, "reason": "returned" }),
                )
                .await;
            assert_eq!(status, 201, "{r}");
            r
        }
    };

    // By signature: the customer's wallet signs the text naming this refund and address.
    let request = ask("4").await;
    let rr = request["id"].as_str().unwrap().to_owned();
    let customer = Browser::start(&[wallet(CUSTOMER, &chain)], 390).await;
    customer.goto(request["url"].as_str().unwrap()).await;
    assert_eq!(customer.text("#amount").await, "4");
    assert!(customer
        .text("#state")
        .await
        .contains("Waiting for your address"));
    customer.click("#sign").await;
    customer
        .wait_for_text("#status", "Your refund will be sent to", WAIT)
        .await;
    assert_eq!(
        customer.text("#destination").await.to_lowercase(),
        CUSTOMER.to_lowercase()
    );
    customer.screenshot(&screenshot("refund-page.png")).await;
    let confirmed = stack.get(&format!("/api/v1/refund_requests/{rr}")).await;
    assert_eq!(confirmed["status"], "address_confirmed");
    assert_eq!(confirmed["confirmation"], "signature");

    // Typed twice: a mismatch is named on the page; the same address twice confirms.
    let typed = ask("1").await;
    customer.goto(typed["url"].as_str().unwrap()).await;
    let exchange = "0x00000000000000000000000000000000000000ee";
    customer.fill("#address", exchange).await;
    customer
        .fill(
            "#address-again",
            "0x00000000000000000000000000000000000000ef",
        )
        .await;
    customer.click("#accept").await;
    customer.click("#confirm-typed").await;
    customer
        .wait_for_text("#status", "does not match the address", WAIT)
        .await;
    customer.fill("#address-again", exchange).await;
    customer.click("#confirm-typed").await;
    customer
        .wait_for_text("#status", "Your refund will be sent to", WAIT)
        .await;
    customer.close().await;
    let typed = stack
        .get(&format!(
            "/api/v1/refund_requests/{}",
            typed["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(typed["confirmation"], "typed_twice");

    // The merchant pays the first from the dashboard's browser wallet, to that address.
    let merchant = Browser::start(&[wallet(MERCHANT_WALLET, &chain)], 1280).await;
    sign_in(&merchant, &stack).await;
    let base = format!("{}/dashboard/test", stack.api);
    merchant.goto(&format!("{base}/refund_requests/{rr}")).await;
    assert_eq!(
        merchant.text("#request-destination").await.to_lowercase(),
        CUSTOMER.to_lowercase()
    );
    merchant.click("#refund-send").await;
    merchant
        .wait_for_text(".notice", "refund was verified", Duration::from_secs(90))
        .await;
    merchant.close().await;
    let paid = stack.get(&format!("/api/v1/refund_requests/{rr}")).await;
    assert_eq!(paid["status"], "refunded", "{paid}");
    let refund = stack
        .get(&format!(
            "/api/v1/refunds/{}",
            paid["refund"].as_str().unwrap()
        ))
        .await;
    assert_eq!(
        refund["to_address"].as_str().unwrap().to_lowercase(),
        CUSTOMER.to_lowercase()
    );
    assert_eq!(refund["amount"], "4");
}
