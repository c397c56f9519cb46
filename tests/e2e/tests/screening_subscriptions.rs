//! A subscriber a sanctions source lists after subscribing (D33): the keeper screens the
//! subscriber before each charge, pauses the subscription with `payer_sanctioned` and
//! sends nothing more, on anvil at depth 2.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use ethers::signers::Signer;
use stablepay_e2e::screening::{oracle_owner, oracle_screening};
use stablepay_e2e::subscriptions::{
    chain_time, merchant_plan, subscribe, subscription_of, succeeded_periods, wait_chain_time,
    wait_sub, INTERVAL,
};
use stablepay_e2e::{poll, PrivateChain, Stack, StackOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_listed_after_subscribing_is_paused_and_never_charged_again() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let mut env = vec![
        ("STABLEPAY_PLAN_MIN_INTERVAL".to_owned(), "1s".to_owned()),
        ("STABLEPAY_DUNNING_DELAYS".to_owned(), "3s".to_owned()),
        ("STABLEPAY_CHAIN_POLL".to_owned(), "250ms".to_owned()),
    ];
    env.extend(oracle_screening(&chain));
    let stack = Stack::start_with(StackOptions {
        env,
        ..StackOptions::on(&chain)
    })
    .await;
    let (plan, _, _) = merchant_plan(&stack).await;
    let (session, buyer) = subscribe(&stack, plan, 100).await;
    let id = subscription_of(&stack, &session).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A renewal by the keeper, its subscriber screened clear.
    poll(Duration::from_secs(40), || async {
        (succeeded_periods(&stack, &id).await.len() >= 2).then_some(())
    })
    .await
    .expect("a renewal");

    oracle_owner(&chain)
        .await
        .add_to_sanctions_list(vec![buyer.signer().address()])
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let paused = wait_sub(&stack, &id, 40, |s| s["status"] == "paused").await;
    assert_eq!(paused["last_failure_code"], "payer_sanctioned", "{paused}");
    let charged = succeeded_periods(&stack, &id).await;
    // Two more periods fall due on chain: nothing is charged.
    wait_chain_time(&chain, chain_time(&chain).await + 2 * INTERVAL as i64).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(succeeded_periods(&stack, &id).await, charged);
    let still = stack.get(&format!("/api/v1/subscriptions/{id}")).await;
    assert_eq!(still["status"], "paused");
    let checks = stablepay_postgres::testing::query_strings(
        &stack.store,
        "SELECT path || ' ' || answer AS value FROM screening_checks \
         WHERE subscription_id IS NOT NULL ORDER BY id",
    )
    .await
    .unwrap();
    assert!(
        checks
            .first()
            .is_some_and(|c| c == "subscription_charge clear"),
        "{checks:?}"
    );
    assert_eq!(
        checks.last().map(String::as_str),
        Some("subscription_charge listed")
    );
}
