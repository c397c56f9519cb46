//! `stablepay-worker`: runs webhook delivery, the chain watchers and billing until
//! SIGINT/SIGTERM.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use secrecy::ExposeSecret;
use stablepay_config::KeyRole;
use stablepay_delivery::HyperTransport;
use stablepay_domain::ports::SystemClock;
use stablepay_domain::services::RetentionPolicy;
use stablepay_domain::services::SweepTarget;
use stablepay_evm::sender::{EvmKeeper, EvmSender, SendingKey};
use stablepay_postgres::{PgAdvisoryLock, PgDeliveryQueue, PgStore, PoolConfig, SecretCipher};
use stablepay_worker::billing_loop::BillingLoop;
use stablepay_worker::chain_watcher::ChainWatcher;
use stablepay_worker::config::WorkerConfig;
use stablepay_worker::delivery_loop::DeliveryLoop;
use stablepay_worker::reconcile_loop::ReconcileLoop;
use stablepay_worker::recovery_loop::RecoveryLoop;
use stablepay_worker::relay_loop::RelayLoop;
use stablepay_worker::retention_loop::RetentionLoop;
use stablepay_worker::sending_ports::SendingPorts;
use stablepay_worker::settle_ports::SettlePorts;
use stablepay_worker::sweep_loop::SweepLoop;

// The api's allocator too (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> ExitCode {
    stablepay_telemetry::init_tracing();
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stablepay-worker: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let cfg = WorkerConfig::from_env().map_err(|e| e.to_string())?;
    let process = &cfg.process;
    let database_url = process.database_url.expose_secret();
    let cipher = SecretCipher::from_keys(&process.secrets).map_err(|e| e.to_string())?;
    // One pool for the whole process: delivery, watchers, billing and retention (plus
    // the LISTEN connection and one advisory-lock connection per chain).
    let pool = PoolConfig {
        max_connections: process.db_pool_size,
        ..PoolConfig::default()
    };
    let store = PgStore::connect(database_url, &pool, cipher).map_err(|e| e.to_string())?;
    if let Some(bind) = &process.metrics_bind {
        let metrics = stablepay_telemetry::start(bind, store.readiness()).await?;
        // On stdout, for whoever started the process with a port-0 bind.
        let _ = writeln!(std::io::stdout(), "operator endpoints on http://{metrics}");
    }
    let delivery = DeliveryLoop {
        queue: Arc::new(PgDeliveryQueue::new(store.clone(), database_url)),
        transport: Arc::new(HyperTransport::new(cfg.allow_private_targets)),
        clock: Arc::new(SystemClock),
        policy: cfg.policy,
        lanes: cfg.lanes,
        batch_size: cfg.batch_size,
        concurrency: cfg.concurrency,
        per_endpoint: cfg.per_endpoint,
        tidy_interval: cfg.tidy_interval,
        lease: cfg.lease,
        poll_interval: cfg.poll_interval,
    };
    let chain_env =
        stablepay_config::ChainEnv::from_env(KeyRole::Keeper).map_err(|e| e.to_string())?;
    let evm = Arc::new(stablepay_evm::EvmChain::from_env(&chain_env)?);
    // D27: the same checks as `stablepay-api doctor`; a mismatch refuses the start.
    let expected =
        stablepay_evm::doctor::expectations(&chain_env, None, chain_env.signing_key.as_ref())?;
    stablepay_evm::doctor::preflight(&evm, &expected).await?;
    let reader: Arc<dyn stablepay_domain::ports::ChainReader> = evm.clone();
    let settle = SettlePorts {
        chains: chain_env.contracts.clone(),
        tokens: chain_env.tokens.clone(),
        chain: reader.clone(),
        store: Arc::new(store.clone()),
        deposits: Arc::new(store.clone()),
        subscriptions: Arc::new(store.clone()),
        clock: Arc::new(SystemClock),
        screening: stablepay_config::ScreeningEnv::from_env()
            .map_err(|e| e.to_string())?
            .screening(
                |oracles| {
                    Arc::new(stablepay_evm::screening::EvmSanctionsOracle::new(
                        evm.clone(),
                        oracles,
                    ))
                },
                |name| {
                    Arc::new(stablepay_postgres::PgSanctionsList::new(
                        store.clone(),
                        name,
                    ))
                },
            ),
        screening_log: Arc::new(store.clone()),
    };
    let watchers: Vec<ChainWatcher> = chain_env
        .contracts
        .all()
        .iter()
        .filter(|c| chain_env.rpc_urls.iter().any(|(id, _)| *id == c.chain))
        .map(|c| ChainWatcher {
            contracts: *c,
            settle: settle.clone(),
            // One advisory-lock key per chain.
            lock: PgAdvisoryLock::new(database_url, 0x05ab_1e00_0000_0000 + c.chain.id() as i64),
            poll_interval: cfg.chain_poll,
            max_range: 2000,
        })
        .collect();
    let reconciling: Vec<ReconcileLoop> = watchers
        .iter()
        .map(|w| ReconcileLoop {
            contracts: w.contracts,
            settle: settle.clone(),
            books: Arc::new(store.clone()),
            // One advisory-lock key per chain, apart from the watcher's.
            lock: PgAdvisoryLock::new(
                database_url,
                0x05ab_1e01_0000_0000 + w.contracts.chain.id() as i64,
            ),
            interval: cfg.reconcile_interval,
            window_blocks: cfg.reconcile_window_blocks,
        })
        .collect();
    // Billing runs where a subscription manager, an RPC and the keeper key are set.
    // One sender per key (D31): the keeper's charges, and the relays and sweeps of the
    // relayer's key.
    let shared = Arc::new(store.clone());
    let sender = |key: stablepay_domain::PrivateKey| -> Result<EvmSender, String> {
        let key = SendingKey::new(key)?;
        Ok(EvmSender::new(
            evm.clone(),
            shared.clone(),
            Arc::new(SystemClock),
            key,
        ))
    };
    let keeper: Option<Arc<EvmKeeper>> = match chain_env.signing_key.clone() {
        Some(key) => Some(Arc::new(EvmKeeper::new(
            sender(key).map_err(|e| format!("STABLEPAY_SIGNING_KEY: {e}"))?,
            chain_env.keeper_min_balance_wei,
        ))),
        None => None,
    };
    let billing: Vec<BillingLoop> = match &keeper {
        None => Vec::new(),
        Some(keeper) => chain_env
            .contracts
            .all()
            .iter()
            .filter(|c| c.subscription_manager.is_some())
            .filter(|c| chain_env.rpc_urls.iter().any(|(id, _)| *id == c.chain))
            .map(|c| BillingLoop {
                chain_id: c.chain,
                settle: settle.clone(),
                keeper: keeper.clone(),
                // The keeper's own sender follows its charges in flight.
                sending: SendingPorts {
                    receipts: evm.clone(),
                    attempts: shared.clone(),
                    sender: Some(Arc::new(keeper.sender().clone())),
                    clock: Arc::new(SystemClock),
                },
                policy: chain_env.dunning.clone(),
                poll_interval: cfg.chain_poll,
                batch: 200,
            })
            .collect(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let signal_stop = stop.clone();
    tokio::spawn(async move {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {},
        }
        tracing::info!("stopping after the batch in flight");
        signal_stop.store(true, Ordering::Relaxed);
    });
    tracing::info!(
        backoff_base_secs = cfg.policy.backoff_base_secs,
        max_attempts = cfg.policy.max_attempts,
        timeout_secs = cfg.policy.timeout_secs,
        allow_private_targets = cfg.allow_private_targets,
        "stablepay-worker delivering webhooks"
    );
    for w in &watchers {
        tracing::info!(chain = w.contracts.chain.id(), router = %w.contracts.checkout_router, confirmations = w.contracts.confirmations, "watching chain");
    }
    for b in &billing {
        tracing::info!(chain = b.chain_id.id(), keeper = %keeper.as_ref().map(|k| k.address().to_string()).unwrap_or_default(), "billing subscriptions");
    }
    let watching = futures_util::future::join_all(watchers.iter().map(|w| w.run(stop.clone())));
    let reconcile_runs =
        futures_util::future::join_all(reconciling.iter().map(|r| r.run(stop.clone())));
    let billing_runs = futures_util::future::join_all(billing.iter().map(|b| b.run(stop.clone())));
    let retention = RetentionLoop {
        store: Arc::new(store.clone()),
        clock: Arc::new(SystemClock),
        policy: RetentionPolicy {
            window_secs: cfg.retention.as_secs(),
            batch: 1000,
            max_batches: 50,
        },
        interval: cfg.retention_interval,
    };
    // Secrets sealed by a previous key (or before key ids) are re-sealed in the background.
    let resealing = async {
        while !stop.load(Ordering::Relaxed) {
            match store.reseal_secrets().await {
                Ok(r) if r.resealed > 0 || r.unreadable > 0 => tracing::info!(
                    resealed = r.resealed,
                    unreadable = r.unreadable,
                    "re-sealed stored secrets under the current key"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "re-sealing stored secrets failed; retrying"),
            }
            stablepay_worker::pause::pause(cfg.retention_interval, &stop).await;
        }
    };
    let recovery = RecoveryLoop {
        reader: Arc::new(store.clone()),
        endpoints: Arc::new(store.clone()),
        outbox: Arc::new(store.clone()),
        recoveries: Arc::new(store.clone()),
        clock: Arc::new(SystemClock),
        poll_interval: cfg.poll_interval,
    };
    // Relayed payments (the api sends them) on every chain with an RPC endpoint.
    let relays = RelayLoop {
        sending: SendingPorts {
            receipts: evm.clone(),
            attempts: shared.clone(),
            sender: match chain_env.relayer.as_ref() {
                Some(r) => Some(Arc::new(
                    sender(r.key.clone()).map_err(|e| format!("STABLEPAY_RELAYER_KEY: {e}"))?,
                )),
                None => None,
            },
            clock: Arc::new(SystemClock),
        },
        chain: evm.clone(),
        relays: shared.clone(),
        deposits: shared.clone(),
        chains: chain_env.rpc_urls.iter().map(|(id, _)| *id).collect(),
        poll_interval: cfg.chain_poll,
    };
    // Deposit sweeps (D24), sent with the relayer key (the keeper key when it is unset).
    let sweeper = chain_env
        .relayer
        .as_ref()
        .map(|r| r.key.clone())
        .or_else(|| chain_env.signing_key.clone());
    let sweeps = match sweeper {
        Some(key) => Some(SweepLoop {
            sending: SendingPorts {
                receipts: evm.clone(),
                attempts: shared.clone(),
                sender: Some(Arc::new(sender(key)?)),
                clock: Arc::new(SystemClock),
            },
            chain: evm.clone(),
            sweeps: shared.clone(),
            targets: chain_env
                .contracts
                .all()
                .iter()
                .filter_map(|c| {
                    Some(SweepTarget {
                        chain: c.chain,
                        factory: c.deposit_factory?,
                        depth: c.confirmations,
                        batch: 50,
                    })
                })
                .collect(),
            poll_interval: cfg.chain_poll,
        }),
        None => None,
    };
    let sweeping = async {
        if let Some(s) = &sweeps {
            s.run(stop.clone()).await;
        }
    };
    futures_util::future::join4(
        futures_util::future::join5(
            delivery.run(stop.clone()),
            watching,
            billing_runs,
            retention.run(stop.clone()),
            resealing,
        ),
        recovery.run(stop.clone()),
        futures_util::future::join(relays.run(stop.clone()), reconcile_runs),
        sweeping,
    )
    .await;
    Ok(())
}
