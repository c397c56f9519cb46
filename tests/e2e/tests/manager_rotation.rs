//! Rotating the subscription manager (issue 29, item 5) on a live chain of the test's own:
//! a new manager is deployed with `contracts deploy` (keeping the router and the deposit
//! factory) and configured, and the api and worker restart. The subscription on the old
//! manager keeps renewing and being recorded; a new one starts on the new manager with
//! the same on-chain id 1; router payments keep settling; the books equal the chain.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use stablepay_e2e::subscriptions::*;
use stablepay_e2e::{
    client_for, deploy_args, funded_buyer, pay_intent, poll, usdc_balance, PrivateChain,
};

/// Waits until the subscription has `n` more succeeded periods than `before`.
async fn renewed(stack: &stablepay_e2e::Stack, id: &str, before: usize, n: usize) -> Vec<i64> {
    poll(Duration::from_secs(60), || async {
        let p = succeeded_periods(stack, id).await;
        (p.len() >= before + n).then_some(p)
    })
    .await
    .unwrap_or_else(|| panic!("{id} did not renew {n} times"))
}

#[tokio::test(flavor = "multi_thread")]
async fn old_subscriptions_renew_on_the_old_manager_while_new_ones_start_on_the_new() {
    let chain = PrivateChain::start_live(Some(1)).await;
    let mut stack = live_stack(&chain, "3s").await;
    let (plan, old_recipient, _) = merchant_plan(&stack).await;
    let (session, old_buyer) = subscribe(&stack, plan, 100).await;
    let old = subscription_of(&stack, &session).await;
    let old_id = old["id"].as_str().unwrap().to_owned();
    assert_eq!(old["chain_subscription_id"], "1");
    let before = renewed(&stack, &old_id, 0, 2).await.len();

    // A new manager, next to the router and factory that stay.
    let info = stack.chain.clone();
    let deployer: [u8; 32] = rand::random();
    client_for(&info, &deployer).await;
    let id = info.chain_id.to_string();
    let mut args = deploy_args(&info);
    args.extend(
        [
            "--router",
            &info.router,
            "--deposit-factory",
            &info.deposit_factory,
        ]
        .map(str::to_owned),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, out, err) = stack.run_to_exit(
        "stablepay-api",
        &args,
        &[(
            "STABLEPAY_DEPLOYER_KEY",
            format!("0x{}", hex::encode(deployer)),
        )],
    );
    assert!(ok, "deploy failed: {err}");
    let variable = format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}=");
    let new_manager = out
        .lines()
        .find_map(|l| l.strip_prefix(&variable))
        .unwrap_or_else(|| panic!("no new manager in {out}"))
        .to_owned();
    assert_ne!(
        new_manager.to_lowercase(),
        info.subscription_manager.to_lowercase()
    );
    stack.chain.subscription_manager = new_manager.clone();
    stack.restart().await;

    // New subscriptions start on the new manager, whose ids start at 1 again.
    let (new_plan, new_recipient, _) = merchant_plan(&stack).await;
    assert_eq!(new_plan, 1, "a new manager numbers its plans from 1");
    let (new_session, _) = subscribe(&stack, new_plan, 100).await;
    let new = subscription_of(&stack, &new_session).await;
    let new_id = new["id"].as_str().unwrap().to_owned();
    assert_eq!(new["chain_subscription_id"], "1");
    assert_ne!(new_id, old_id);

    // Both renew, each on its own manager, and are recorded.
    let old_periods = renewed(&stack, &old_id, before, 2).await;
    let new_periods = renewed(&stack, &new_id, 1, 1).await;
    // Router payments on the chain keep settling.
    let (status, one_time) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Order", "amount": "1.00",
                    "recipient": new_recipient }),
        )
        .await;
    assert_eq!(status, 201, "{one_time}");
    let one_time = one_time["id"].as_str().unwrap();
    let (_, intent) = stack.intent(one_time).await;
    let payer = funded_buyer(&stack.chain).await;
    pay_intent(&payer, &intent).await;
    let done = stack
        .wait_for_session(one_time, "completed", Duration::from_secs(30))
        .await;
    assert_eq!(done["status"], "completed");

    // The books equal the chain: each recipient holds the net of every recorded charge.
    // (Charges may land after the reads above: read the chain, then the books, until equal.)
    let net = 2_475_000u128;
    // The new recipient also got the one-time payment's net (1.00 less the 1 % fee).
    for (sub, recipient, other) in [
        (&old_id, &old_recipient, 0),
        (&new_id, &new_recipient, 990_000),
    ] {
        let equal = poll(Duration::from_secs(30), || async {
            let on_chain = usdc_balance(&old_buyer, &stack.chain, recipient).await;
            let booked = succeeded_periods(&stack, sub).await.len() as u128 * net + other;
            (on_chain == booked).then_some(())
        })
        .await;
        assert!(equal.is_some(), "{sub}: the books differ from the chain");
    }
    let s = stack.get(&format!("/api/v1/subscriptions/{old_id}")).await;
    assert_eq!(s["status"], "active");
    println!(
        "old manager: {} periods, new manager: {} periods",
        old_periods.len(),
        new_periods.len()
    );
}
