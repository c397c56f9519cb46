//! `cargo xtask bench billing`: recurring charges per minute on one chain with one keeper,
//! and due-to-charged latency. `BENCH_SUBSCRIPTIONS` (default 1000) subscriptions are
//! created on a fresh live dev chain (8453) with real `subscribe` transactions, recorded
//! in PostgreSQL as due now, and the chain's clock is moved one period on; then a
//! release-built `stablepay-worker` charges them all (simulate, nonce, sign, send, settle
//! at depth 2). The clock starts when the worker does.

use std::time::{Duration, Instant};

use serde_json::json;
use stablepay_domain::rules::eip712::{self, Domain, SubscribeIntent};
use stablepay_domain::*;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

use crate::bench::{env_number, ChainBench};
use crate::chain::{self, rpc};

const SECRETS_KEY: [u8; 32] = [9u8; 32];
const INTERVAL: u64 = 3600;
const PLAN_AMOUNT: u64 = 1_000;
const FEE: u64 = 10;

fn word(hex_or_dec: &str) -> String {
    let v = hex_or_dec.trim_start_matches("0x");
    format!("{v:0>64}")
}

fn send(url: &str, from: &str, to: &str, data: &str) -> Result<String, String> {
    crate::chain::send_with_gas(url, from, Some(to), data.to_owned(), 300_000)
}

fn wait_receipt(url: &str, tx: &str) -> Result<(), String> {
    for _ in 0..600 {
        let r = rpc(url, "eth_getTransactionReceipt", json!([tx]))?;
        if let Some(status) = r["status"].as_str() {
            return if status == "0x1" {
                Ok(())
            } else {
                Err(format!("{tx} reverted"))
            };
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let pool = rpc(url, "txpool_status", json!([])).unwrap_or_default();
    Err(format!("{tx} was not mined in 60 s (txpool: {pool})"))
}

pub fn run(_args: &[String]) -> Result<(), String> {
    let total: u64 = env_number("BENCH_SUBSCRIPTIONS", 1000);
    let rig = ChainBench::start(8453, "bench_billing")?;
    rig.setup.runtime.block_on(bench(&rig, total))
}

async fn bench(rig: &ChainBench, total: u64) -> Result<(), String> {
    let (pg, db, dev) = (&rig.setup.pg, rig.setup.db.as_str(), &rig.dev);
    run_migrations(db).await?;
    let store = PgStore::connect(
        db,
        &PoolConfig::default(),
        SecretCipher::new(&SECRETS_KEY).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let merchant = store
        .create_merchant("Bench", FeeTier::Standard)
        .await
        .map_err(|e| e.to_string())?
        .id;
    let url = &dev.rpc_url;
    let manager = dev.subscription_manager.to_lowercase();
    let usdc = dev.usdc.to_lowercase();
    let recipient = chain::address(chain::MERCHANTS[0]).to_lowercase();
    let buyer = chain::address(chain::BUYERS[0]).to_lowercase();

    // The merchant's plan (createPlan) and the buyer's allowance.
    let create = format!(
        "0x8734e21a{}{}{}{}",
        word(&usdc),
        word(&recipient),
        word(&format!("{PLAN_AMOUNT:x}")),
        word(&format!("{INTERVAL:x}"))
    );
    wait_receipt(url, &send(url, &recipient, &manager, &create)?)?;
    let plan_id = 1u128;
    let approve = format!("0x095ea7b3{}{}", word(&manager), "f".repeat(64));
    wait_receipt(url, &send(url, &buyer, &usdc, &approve)?)?;

    // `total` subscriptions from one buyer (one sender: ids follow its nonces, 1..=total).
    println!("xtask: {total} subscribe transactions");
    let operator: [u8; 32] = hex::decode(chain::key(chain::OPERATOR).trim_start_matches("0x"))
        .map_err(|e| e.to_string())?
        .try_into()
        .map_err(|_| "operator key")?;
    let domain = Domain {
        name: eip712::SUBSCRIPTIONS_NAME,
        chain_id: 8453,
        verifying_contract: Address::parse(&manager).map_err(|e| e.to_string())?,
    };
    let deadline = chrono::Utc::now().timestamp() as u64 + 3600;
    let mut last = String::new();
    for i in 0..total {
        let mut reference = [0u8; 32];
        reference[24..].copy_from_slice(&i.to_be_bytes());
        let intent = SubscribeIntent {
            plan_id,
            reference,
            fee_amount: u128::from(FEE),
            deadline,
        };
        let sig = eip712::sign(&domain, intent.struct_hash(), &operator).ok_or("signing")?;
        let data = format!(
            "0x{}",
            hex::encode(stablepay_evm::calldata::subscribe(&intent, &sig))
        );
        last = send(url, &buyer, &manager, &data)?;
        // In batches of 100 (one block's worth): a flood of 1000 pending transactions from
        // one sender sometimes stalls anvil's pool.
        if i % 100 == 99 {
            wait_receipt(url, &last)?;
        }
    }
    wait_receipt(url, &last)?;

    // The books: one customer, `total` active subscriptions due now.
    pg.psql(
        db,
        &format!(
            "INSERT INTO customers (id, merchant_id, livemode, address, created_at)
               VALUES (gen_random_uuid(), '{m}', true, '{buyer}', now());
             INSERT INTO subscriptions (id, merchant_id, livemode, status, title, customer_id,
               wallet_address, chain_id, chain_subscription_id, chain_plan_id, amount_micros,
               fee_micros, interval_seconds, next_payment_at, retry_count, created_at,
               manager_address, recipient_address, token_address)
             SELECT gen_random_uuid(), '{m}', true, 'active', 'Bench plan', c.id, c.address,
               8453, i::text, '{plan_id}', {PLAN_AMOUNT}, {FEE}, {INTERVAL}, now(), 0, now(),
               '{manager}', '{recipient}', '{usdc}'
             FROM generate_series(1, {total}) i, customers c WHERE c.merchant_id = '{m}';",
            m = merchant.uuid()
        ),
    )?;
    // One period passes on chain.
    rpc(url, "evm_increaseTime", json!([INTERVAL]))?;
    rpc(url, "evm_mine", json!([]))?;

    let mut cmd = rig.worker(&SECRETS_KEY);
    cmd.env("STABLEPAY_CONFIRMATIONS_8453", "2")
        .env("STABLEPAY_KEEPER_KEY", chain::key(chain::KEEPER))
        .env("STABLEPAY_CHAIN_POLL", "200ms");
    let started = Instant::now();
    let start_sql = "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')";
    let t0 = pg.psql(db, start_sql)?;
    let mut worker = cmd
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))?;
    let count_sql =
        "SELECT count(*) FROM payments WHERE charge_type = 'recurring' AND status = 'confirmed'";
    let mut charged = 0u64;
    while charged < total && started.elapsed() < Duration::from_secs(600) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        charged = pg.psql(db, count_sql)?.parse().unwrap_or(0);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let _ = worker.kill();
    let _ = worker.wait();
    let latency = pg.psql(
        db,
        &format!(
            "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s) * 1000) || ' ' ||
                    round(percentile_cont(0.99) WITHIN GROUP (ORDER BY s) * 1000) || ' ' ||
                    round(max(s) * 1000)
             FROM (SELECT extract(epoch FROM created_at - '{t0}'::timestamp AT TIME ZONE 'UTC') AS s
                   FROM payments WHERE charge_type = 'recurring' AND status = 'confirmed') x"
        ),
    )?;
    let failed = pg.psql(
        db,
        "SELECT count(*) FROM payment_attempts WHERE status = 'failed'",
    )?;
    let nonces = pg.psql(
        db,
        "SELECT count(*) || ' sent, nonces ' || min(nonce) || '..' || max(nonce) FROM keeper_transactions",
    )?;
    println!();
    println!("billing: {total} subscriptions due at once, one keeper, depth 2, chain 8453 (anvil, 1 block/s)");
    println!(
        "  charged {charged} of {total} in {elapsed:.1} s = {:.0} charges/min",
        charged as f64 / elapsed * 60.0
    );
    println!("  due-to-charged latency (from worker start) p50/p99/max ms: {latency}");
    println!("  failed attempts: {failed}; keeper transactions: {nonces}");
    if charged < total {
        return Err(format!("only {charged} of {total} were charged"));
    }
    Ok(())
}
