//! Merchants refund on-chain from a verified wallet and report the transaction; the
//! service verifies every rule of the spec before recording it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use stablepay_domain::parse_signed_micros;
use stablepay_e2e::*;

#[tokio::test(flavor = "multi_thread")]
async fn partial_then_full_refunds_with_every_rejection() {
    let stack = Stack::start().await;
    let (merchant_addr, merchant_key) = stack.fresh_verified_wallet().await;
    let (_, endpoint) = stack
        .post(
            "/api/v1/webhook_endpoints",
            json!({ "url": "http://localhost:9/x", "enabled_events": ["payment.refunded"] }),
        )
        .await;
    let (_, payment, buyer) = paid_session(&stack, "12.5").await;
    let pay_id = payment["id"].as_str().unwrap();
    let payer = payment["wallet_address"].as_str().unwrap().to_owned();
    let merchant = client_for(&stack.chain, &merchant_key).await;
    // Top up the merchant wallet: rejected refunds below still move real tokens.
    mint(&merchant, &stack.chain.usdc, &merchant_addr, 100_000_000).await;
    let usdc = stack.chain.usdc.clone();

    // Partial refund of 5.
    let tx = transfer(&merchant, &usdc, &payer, 5_000_000).await;
    let (status, refund) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx, "reason": "damaged bag" }),
        )
        .await;
    assert_eq!(status, 201, "{refund}");
    assert!(refund["id"].as_str().unwrap().starts_with("re_"));
    assert_eq!(
        (
            refund["object"].as_str(),
            refund["status"].as_str(),
            refund["amount"].as_str()
        ),
        (Some("refund"), Some("succeeded"), Some("5"))
    );
    assert_eq!(
        (
            refund["payment"].as_str(),
            refund["currency"].as_str(),
            refund["chain_id"].as_u64()
        ),
        (Some(pay_id), Some("USDC"), Some(84532))
    );
    assert_eq!(refund["from_address"].as_str().unwrap(), merchant_addr);
    assert_eq!(
        refund["to_address"].as_str().unwrap().to_lowercase(),
        payer.to_lowercase()
    );
    assert_eq!(
        (refund["tx_hash"].as_str(), refund["reason"].as_str()),
        (Some(tx.as_str()), Some("damaged bag"))
    );
    let p = stack.get(&format!("/api/v1/payments/{pay_id}")).await;
    assert_eq!(
        (p["status"].as_str(), p["refunded_amount"].as_str()),
        (Some("confirmed"), Some("5"))
    );

    // Re-reporting the same transaction returns the same refund with 200.
    let (status, again) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx }),
        )
        .await;
    assert_eq!((status, again["id"].clone()), (200, refund["id"].clone()));

    // More than the refundable 7.5.
    let tx_over = transfer(&merchant, &usdc, &payer, 8_000_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_over }),
        )
        .await;
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["error"]["code"], "invalid_request_error");
    // An amount that is not the transfer's.
    let tx_rest = transfer(&merchant, &usdc, &payer, 7_500_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_rest, "amount": "7" }),
        )
        .await;
    assert_eq!(
        (status, err["error"]["details"][0]["field"].as_str()),
        (400, Some("amount"))
    );
    // The wrong token.
    mint(&merchant, &stack.chain.usdt, &merchant_addr, 1_000_000).await;
    let tx_usdt = transfer(&merchant, &stack.chain.usdt, &payer, 1_000_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_usdt }),
        )
        .await;
    assert_eq!(
        (status, err["error"]["details"][0]["field"].as_str()),
        (400, Some("tx_hash"))
    );
    // Not to the payer.
    let tx_elsewhere = transfer(&merchant, &usdc, &merchant_addr, 1_000_000).await;
    let (status, _) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_elsewhere }),
        )
        .await;
    assert_eq!(status, 400);
    // Not from a verified wallet (the buyer refunding itself).
    let tx_self = transfer(&buyer, &usdc, &payer, 1_000_000).await;
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_self }),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("verified"),
        "{err}"
    );
    // Unknown payment, malformed input.
    let (status, _) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": "pay_0351MiBHWMVfqWW6gX4oqu", "tx_hash": tx_rest }),
        )
        .await;
    assert_eq!(status, 404);
    let (status, err) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": "0x12", "amount": 7.5 }),
        )
        .await;
    assert_eq!(status, 400);
    let fields: Vec<&str> = err["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["tx_hash", "amount"]);

    // The rest: the payment becomes refunded.
    let (status, last) = stack
        .post(
            "/api/v1/refunds",
            json!({ "payment": pay_id, "tx_hash": tx_rest, "amount": "7.5" }),
        )
        .await;
    assert_eq!(status, 201, "{last}");
    let p = stack.get(&format!("/api/v1/payments/{pay_id}")).await;
    assert_eq!(
        (p["status"].as_str(), p["refunded_amount"].as_str()),
        (Some("refunded"), Some("12.5"))
    );
    let list = stack
        .get(&format!("/api/v1/refunds?payment={pay_id}"))
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
    assert_eq!(list["data"][0]["id"], last["id"]);
    let got = stack
        .get(&format!(
            "/api/v1/refunds/{}",
            refund["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(got, refund);
    // Each recorded refund fired payment.refunded, carrying the payment after the refund.
    let events = stack
        .get("/api/v1/webhook_events?type=payment.refunded")
        .await;
    let events = events["data"].as_array().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["endpoint"], endpoint["id"]);
    assert_eq!(
        events[0]["payload"]["data"]["object"]["refunded_amount"],
        "12.5"
    );
    assert_eq!(
        events[1]["payload"]["data"]["object"]["refunded_amount"],
        "5"
    );
    // Each recorded refund is in the audit log (D32), once: rejected reports left nothing.
    let audit = stack.get("/api/v1/audit_events?limit=100").await;
    let reported: Vec<_> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "refund.reported")
        .collect();
    assert_eq!(reported.len(), 2, "{audit}");
    assert_eq!(reported[0]["target"], last["id"]);
    assert_eq!(reported[1]["target"], refund["id"]);
    assert_eq!(reported[0]["actor"]["type"], "api_key");
    assert_eq!(
        (
            &reported[0]["after"]["amount"],
            &reported[0]["after"]["payment"],
            &reported[0]["after"]["tx_hash"]
        ),
        (&json!("7.5"), &json!(pay_id), &json!(tx_rest))
    );

    // The ledger (D32): the payment in, both refunds out, each at its block's time.
    let ledger = stack
        .get(&format!("/api/v1/balance_transactions?payment={pay_id}"))
        .await;
    let entries = ledger["data"].as_array().unwrap();
    let seen: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["amount"].as_str().unwrap(),
                e["source"].as_str().unwrap(),
            )
        })
        .collect();
    let pay = pay_id;
    let (first, second) = (refund["id"].as_str().unwrap(), last["id"].as_str().unwrap());
    assert_eq!(
        seen,
        [
            ("refund", "-7.5", second),
            ("refund", "-5", first),
            ("payment", "12.5", pay)
        ]
    );
    assert_eq!(entries[2]["fee"], p["fee_amount"]);
    assert_eq!(entries[0]["tx_hash"], last["tx_hash"]);
    assert!(entries.iter().all(|e| e["block_time"].is_string()
        && e["block_number"].is_string()
        && e["object"] == "balance_transaction"));
    let refunds_only = stack
        .get(&format!(
            "/api/v1/balance_transactions?type=refund&source={first}"
        ))
        .await;
    assert_eq!(refunds_only["data"].as_array().unwrap().len(), 1);
    assert_eq!(refunds_only["data"][0]["amount"], "-5");

    // The export (D32): the same entries, oldest first, as CSV whose columns are the
    // fields' names and whose amounts parse back to the same sums.
    let export = stack
        .get_raw(&format!(
            "/api/v1/balance_transactions/export?payment={pay_id}"
        ))
        .await;
    assert_eq!(export.status(), 200);
    assert_eq!(export.headers()["content-type"], "text/csv; charset=utf-8");
    let csv = export.text().await.unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let ids: Vec<&str> = rows.iter().map(|r| r[column("id")]).collect();
    let listed: Vec<&str> = entries
        .iter()
        .rev()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, listed);
    for (row, entry) in rows.iter().zip(entries.iter().rev()) {
        for name in [
            "type",
            "source",
            "amount",
            "fee",
            "net",
            "tx_hash",
            "block_time",
        ] {
            assert_eq!(row[column(name)], entry[name].as_str().unwrap(), "{name}");
        }
    }
    let micros = |amount: &str| parse_signed_micros(amount).unwrap();
    let sum = |amounts: Vec<&str>| -> i64 { amounts.into_iter().map(micros).sum() };
    let csv_net = sum(rows.iter().map(|r| r[column("net")]).collect());
    let json_net = sum(entries.iter().map(|e| e["net"].as_str().unwrap()).collect());
    assert_eq!(csv_net, json_net);
    // 12.5 in, less its fee, and 12.5 back out: the merchant is short exactly the fee.
    assert_eq!(csv_net, -micros(p["fee_amount"].as_str().unwrap()));
    // The export takes the list's filters, and refuses what the list refuses.
    let refunds_csv = stack
        .get_raw(&format!(
            "/api/v1/balance_transactions/export?payment={pay_id}&type=refund"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(refunds_csv.lines().count(), 3, "{refunds_csv}");
    let bad = stack
        .get("/api/v1/balance_transactions/export?created[gte]=yesterday")
        .await;
    assert_eq!(bad["error"]["details"][0]["field"], "created[gte]", "{bad}");
}
