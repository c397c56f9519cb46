//! `stablepay-api doctor` and the start-up checks (D27) against the shared test chain: a
//! configuration that matches the chain passes every check; a wrong treasury, token or
//! keeper key is named, and `serve` / the worker refuse to start on it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_e2e::*;

/// Some address nobody configured.
fn stranger() -> String {
    format!("0x{}", hex::encode(rand::random::<[u8; 20]>()))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_doctor_passes_a_configuration_that_matches_the_chain() {
    let stack = Stack::start().await;
    let id = stack.chain.chain_id;
    let (ok, out, err) = stack.run_to_exit("stablepay-api", &["doctor"], &[]);
    assert!(ok, "doctor failed: {out}{err}");
    for variable in [
        format!("STABLEPAY_RPC_URL_{id}"),
        format!("STABLEPAY_CHECKOUT_ROUTER_{id}"),
        format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"),
        format!("STABLEPAY_DEPOSIT_FACTORY_{id}"),
        format!("STABLEPAY_TREASURY_{id}"),
        format!("STABLEPAY_TOKEN_USDC_{id}"),
        format!("STABLEPAY_TOKEN_USDT_{id}"),
        format!("STABLEPAY_TOKEN_EURC_{id}"),
        format!("STABLEPAY_PRICE_FEED_EUR_USD_{id}"),
        format!("STABLEPAY_PRICE_FEED_USDC_USD_{id}"),
        format!("STABLEPAY_PRICE_FEED_USDT_USD_{id}"),
        format!("STABLEPAY_PRICE_FEED_EURC_USD_{id}"),
        "STABLEPAY_OPERATOR_KEY".into(),
        "STABLEPAY_KEEPER_KEY".into(),
        "STABLEPAY_RELAYER_KEY".into(),
        "STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT".into(),
        "DATABASE_URL".into(),
    ] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("ok") && l.contains(&variable)),
            "no passing check of {variable}:\n{out}"
        );
    }
    // USDC and EURC are both FiatTokens: each is checked for one-signature payments.
    assert!(
        out.contains("speaks EIP-3009 (USD Coin version 2)"),
        "{out}"
    );
    assert!(out.contains("speaks EIP-3009 (EURC version 2)"), "{out}");
    assert!(out.contains("EUR/USD at "), "{out}");
    assert!(out.trim_end().ends_with("checks passed"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_treasury_is_named_and_the_api_refuses_to_start() {
    let stack = Stack::start().await;
    let variable = format!("STABLEPAY_TREASURY_{}", stack.chain.chain_id);
    let wrong = [(variable.as_str(), stranger())];
    let (ok, out, err) = stack.run_to_exit("stablepay-api", &["doctor"], &wrong);
    assert!(!ok, "doctor passed a wrong treasury: {out}");
    assert!(
        err.contains(&format!("{variable} did not pass")),
        "the first failure names the treasury: {err}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("FAIL") && l.contains(&variable) && l.contains("treasury()")),
        "{out}"
    );
    let (started, _, err) = stack.run_to_exit("stablepay-api", &["serve"], &wrong);
    assert!(!started, "serve exited 0");
    assert!(
        err.contains("refusing to start") && err.contains(&variable),
        "serve names the treasury: {err}"
    );
    let (started, _, err) = stack.run_to_exit("stablepay-worker", &[], &wrong);
    assert!(
        !started && err.contains(&variable),
        "the worker refuses too: {err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_that_is_not_one_and_a_foreign_keeper_key_are_named() {
    let stack = Stack::start().await;
    let id = stack.chain.chain_id;
    // The router's address as USDC: a contract that answers no decimals().
    let token_var = format!("STABLEPAY_TOKEN_USDC_{id}");
    let (ok, _, err) = stack.run_to_exit(
        "stablepay-api",
        &["doctor"],
        &[(token_var.as_str(), stack.chain.router.clone())],
    );
    assert!(
        !ok && err.contains(&format!("{token_var} did not pass")),
        "{err}"
    );
    assert!(err.contains("not a token"), "{err}");
    // A keeper key the subscription manager does not trust: the worker will not start.
    let key = format!("0x{}", hex::encode(rand::random::<[u8; 32]>()));
    let (started, _, err) =
        stack.run_to_exit("stablepay-worker", &[], &[("STABLEPAY_KEEPER_KEY", key)]);
    assert!(!started, "the worker started with a foreign keeper key");
    assert!(
        err.contains("STABLEPAY_KEEPER_KEY") && err.contains("keeper()"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn contracts_swapped_or_misplaced_are_named_and_refused() {
    let stack = Stack::start().await;
    let id = stack.chain.chain_id;
    let router_var = format!("STABLEPAY_CHECKOUT_ROUTER_{id}");
    let manager_var = format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}");
    let factory_var = format!("STABLEPAY_DEPOSIT_FACTORY_{id}");
    // Router and manager swapped: both have operator() and treasury(); their EIP-712
    // domains tell them apart.
    let swapped = [
        (
            router_var.as_str(),
            stack.chain.subscription_manager.clone(),
        ),
        (manager_var.as_str(), stack.chain.router.clone()),
    ];
    let (ok, _, err) = stack.run_to_exit("stablepay-api", &["doctor"], &swapped);
    assert!(!ok, "doctor passed swapped contracts");
    assert!(
        err.contains(&format!("{router_var} did not pass"))
            && err.contains("EIP-712 domain differs"),
        "{err}"
    );
    // The router named as the deposit factory: a treasury() alone does not make one.
    let misplaced = [(factory_var.as_str(), stack.chain.router.clone())];
    let (ok, _, err) = stack.run_to_exit("stablepay-api", &["doctor"], &misplaced);
    assert!(!ok, "doctor passed the router as the deposit factory");
    assert!(
        err.contains(&format!("{factory_var} did not pass"))
            && err.contains("not a stablepay deposit factory"),
        "{err}"
    );
    let (started, _, err) = stack.run_to_exit("stablepay-api", &["serve"], &misplaced);
    assert!(
        !started && err.contains(&factory_var),
        "serve refuses it: {err}"
    );
}
