//! `stablepay-api reconcile` (D32) on an anvil chain of its own: payments of every path
//! (router, deposit with an overpayment, a subscription's first charge) and a refund
//! leave no difference between the ledger and the chain; one ledger row changed by hand
//! in the database is found, alone, and the command exits 1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use stablepay_domain::ports::ReconcileStore;
use stablepay_domain::ChainId;
use stablepay_e2e::subscriptions::{merchant_plan, subscribe};
use stablepay_e2e::*;

fn reconcile(stack: &Stack, chain: &PrivateChain) -> (bool, String, String) {
    let id = chain.info().chain_id.to_string();
    stack.run_to_exit(
        "stablepay-api",
        &["reconcile", "--chain-id", &id, "--from-block", "0"],
        &[],
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn reconcile_finds_nothing_on_every_path_and_exactly_the_row_changed_by_hand() {
    // Live mode (subscriptions), a block every second as on the dev stack.
    let chain = PrivateChain::start_live(Some(1)).await;
    // The worker reconciles every 2 s (one hour by default).
    let stack = Stack::start_with(StackOptions {
        env: vec![
            ("STABLEPAY_PLAN_MIN_INTERVAL".into(), "1s".into()),
            ("STABLEPAY_CHAIN_POLL".into(), "250ms".into()),
            ("STABLEPAY_RECONCILE_INTERVAL".into(), "2s".into()),
        ],
        ..StackOptions::on(&chain)
    })
    .await;
    // A subscription's first charge (its plan's recipient is a verified wallet).
    let (plan, merchant_addr, merchant_key) = merchant_plan(&stack).await;
    subscribe(&stack, plan, 1).await;
    // A router payment to the same wallet, refunded in part from it.
    let (_, payment, _) = paid_session(&stack, "12.5").await;
    let pay_id = payment["id"].as_str().unwrap().to_owned();
    let payer = payment["wallet_address"].as_str().unwrap().to_owned();
    let merchant = client_for(&stack.chain, &merchant_key).await;
    mint(&merchant, &stack.chain.usdc, &merchant_addr, 10_000_000).await;
    let refund_tx = transfer(&merchant, &stack.chain.usdc, &payer, 5_000_000).await;
    chain.mine(2).await;
    let (status, refund) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": refund_tx }),
        )
        .await;
    assert_eq!(status, 201, "{refund}");
    // A deposit that overpays by 0.1.
    let (status, session) = stack
        .post(
            "/api/v1/checkout/sessions",
            json!({ "mode": "payment", "title": "Order", "amount": "3" }),
        )
        .await;
    assert_eq!(status, 201, "{session}");
    let buyer = funded_buyer(&stack.chain).await;
    let deposit = session["deposit_address"].as_str().unwrap();
    transfer(&buyer, &stack.chain.usdc, deposit, 3_100_000).await;
    let done = poll(Duration::from_secs(30), || async {
        chain.mine(1).await;
        let s = stack
            .get(&format!(
                "/api/v1/checkout/sessions/{}",
                session["id"].as_str().unwrap()
            ))
            .await;
        (s["status"] == "completed").then_some(())
    })
    .await;
    assert!(done.is_some(), "the deposit completes its session");
    // Everything at depth: four kinds of money in the ledger.
    chain.mine(2).await;
    let ledger = stack.get("/api/v1/balance_transactions?limit=100").await;
    let mut kinds: Vec<&str> = ledger["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        [
            "overpayment",
            "payment",
            "payment",
            "refund",
            "subscription_charge"
        ],
        "{ledger}"
    );

    let (ok, out, err) = reconcile(&stack, &chain);
    assert!(ok, "reconcile found differences:\n{out}\n{err}");
    assert!(out.contains(", 0 differences, 0 unverified"), "{out}");

    // A ledger row changed by hand (its append-only trigger set aside for the change).
    let id = stablepay_domain::PaymentId::parse(&pay_id).unwrap().uuid();
    for sql in [
        "ALTER TABLE balance_transactions DISABLE TRIGGER USER".to_owned(),
        format!(
            "UPDATE balance_transactions SET amount_micros = amount_micros + 1, \
             net_micros = net_micros + 1 WHERE payment_id = '{id}' AND type = 'payment'"
        ),
        "ALTER TABLE balance_transactions ENABLE TRIGGER USER".to_owned(),
    ] {
        stablepay_postgres::testing::execute_sql(&stack.store, &sql)
            .await
            .unwrap();
    }
    let (ok, out, err) = reconcile(&stack, &chain);
    assert!(!ok, "a changed row must fail the run:\n{out}");
    let command_out = out.clone();
    assert!(err.contains("1 differences"), "{err}");
    let differences: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with("chain ") && !l.starts_with("unverified"))
        .collect();
    assert_eq!(differences.len(), 1, "{out}");
    assert!(
        differences[0].starts_with("amount differs: ")
            && differences[0].contains(payment["tx_hash"].as_str().unwrap())
            && differences[0].ends_with("is booked at 12.500001 and moved 12.5"),
        "{out}"
    );

    // The worker's scheduled run finds the same one difference and keeps it; the doctor
    // prints it.
    let chain_id = ChainId::from_id(chain.info().chain_id).unwrap();
    let scheduled = poll(Duration::from_secs(20), || async {
        let run = stack.store.latest_reconcile_run(chain_id).await.unwrap();
        run.filter(|(_, _, differences, _)| *differences == 1)
    })
    .await;
    assert!(
        scheduled.is_some(),
        "the worker's reconcile records the difference"
    );
    let (_, out, _) = stack.run_to_exit("stablepay-api", &["doctor"], &[]);
    assert!(
        out.contains("1 differences between the ledger and the chain"),
        "{out}\n{command_out}"
    );
}
