//! `stablepay-api`: the HTTP API (`serve`, the default) and the operator commands.

use std::io::Write;
use std::net::TcpListener;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use secrecy::ExposeSecret;
use stablepay_api::config::ServeConfig;
use stablepay_api::operator::{self, KeyCommand, MerchantCommand, UserCommand};
use stablepay_config::KeyRole;
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

// glibc's malloc was about 12 % of the api's CPU per GET (perf, docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "stablepay-api",
    version,
    about = "stablepay REST API and operator commands"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API (default).
    Serve,
    /// Apply pending database migrations.
    Migrate,
    /// Check the configuration against each chain and the database, one line per check;
    /// exit 1 naming the variable of the first check that did not pass.
    Doctor,
    /// Compare the ledger with the chain for a block range (D32): print every difference
    /// and exit 1 on any.
    Reconcile(operator::ReconcileArgs),
    /// Deploy the contracts (D27).
    #[command(subcommand)]
    Contracts(ContractsCommand),
    /// Manage merchants.
    #[command(subcommand)]
    Merchants(MerchantCommand),
    /// Manage API keys.
    #[command(subcommand)]
    Keys(KeyCommand),
    /// Manage dashboard users.
    #[command(subcommand)]
    Users(UserCommand),
    /// Sanctions lists payers are screened against (D33).
    #[command(subcommand)]
    Screening(operator::ScreeningCommand),
}

#[derive(Subcommand)]
enum ContractsCommand {
    /// Deploy the checkout router, subscription manager and deposit factory from the
    /// committed bytecode; print the STABLEPAY_*_<chain> lines to configure.
    Deploy(stablepay_api::contracts::DeployArgs),
}

#[tokio::main]
async fn main() -> ExitCode {
    stablepay_telemetry::init_tracing();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
        Command::Migrate => migrate().await,
        Command::Doctor => stablepay_api::doctor::run().await,
        Command::Reconcile(args) => operator::reconcile(args).await,
        Command::Contracts(ContractsCommand::Deploy(args)) => {
            stablepay_api::contracts::deploy(args).await
        }
        Command::Merchants(cmd) => operator::merchants(cmd).await,
        Command::Keys(cmd) => operator::keys(cmd).await,
        Command::Users(cmd) => operator::users(cmd).await,
        Command::Screening(cmd) => operator::screening(cmd).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("stablepay-api: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), String> {
    let cfg = ServeConfig::from_env().map_err(|e| e.to_string())?;
    let process = &cfg.process;
    let cipher = SecretCipher::from_keys(&process.secrets).map_err(|e| e.to_string())?;
    let pool = PoolConfig {
        max_connections: process.db_pool_size,
        shards: cfg.workers,
        ..PoolConfig::default()
    };
    let store = PgStore::connect(process.database_url.expose_secret(), &pool, cipher)
        .map_err(|e| e.to_string())?;
    let listener = TcpListener::bind(&cfg.bind)
        .map_err(|e| format!("STABLEPAY_BIND: cannot bind {}: {e}", cfg.bind))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let chain_env =
        stablepay_config::ChainEnv::from_env(KeyRole::Operator).map_err(|e| e.to_string())?;
    let reader = std::sync::Arc::new(stablepay_evm::EvmChain::from_env(&chain_env)?);
    // D27: the configuration must match each chain it names before any money is judged.
    let expected =
        stablepay_evm::doctor::expectations(&chain_env, chain_env.signing_key.as_ref(), None)?;
    stablepay_evm::doctor::preflight(&reader, &expected).await?;
    let relayer: Option<std::sync::Arc<dyn stablepay_domain::ports::PaymentRelayer>> =
        match chain_env.relayer {
            Some(r) => {
                use stablepay_evm::sender::{EvmRelayer, EvmSender, SendingKey};
                let key =
                    SendingKey::new(r.key).map_err(|e| format!("STABLEPAY_RELAYER_KEY: {e}"))?;
                let store = std::sync::Arc::new(store.clone());
                let clock = std::sync::Arc::new(stablepay_domain::ports::SystemClock);
                let sender = EvmSender::new(reader.clone(), store.clone(), clock, key);
                let relayer = EvmRelayer::new(sender, store, r.min_balance_wei, r.revert_budget);
                tracing::info!(relayer = %relayer.address(), "relaying one-signature payments");
                Some(std::sync::Arc::new(relayer))
            }
            None => None,
        };
    let tokens = chain_env.tokens;
    let screening = stablepay_config::ScreeningEnv::from_env()
        .map_err(|e| e.to_string())?
        .screening(
            |oracles| {
                std::sync::Arc::new(stablepay_evm::screening::EvmSanctionsOracle::new(
                    reader.clone(),
                    oracles,
                ))
            },
            |name| {
                std::sync::Arc::new(stablepay_postgres::PgSanctionsList::new(
                    store.clone(),
                    name,
                ))
            },
        );
    let chain = stablepay_api::ChainSettings {
        reader,
        relayer,
        screening,
        contracts: chain_env.contracts,
        price_feeds: chain_env.price_feeds,
        operator_key: chain_env.signing_key,
        intent_ttl_secs: chain_env.intent_ttl.as_secs(),
        plan_min_interval_secs: chain_env.plan_min_interval.as_secs(),
    };
    let readiness = store.readiness();
    let state = stablepay_api::state_from_store(
        store,
        chain,
        tokens,
        cfg.public_url_for(addr),
        stablepay_api::Limits {
            per_key_per_min: cfg.rate_limit_per_min,
            trusted_proxies: cfg.trusted_proxies.clone(),
        },
        cfg.dashboard,
        std::sync::Arc::new(stablepay_domain::ports::SystemClock),
    );
    if let Some(bind) = &process.metrics_bind {
        let metrics = stablepay_telemetry::start(bind, readiness).await?;
        // On stdout, for whoever started the process with a port-0 bind.
        let _ = writeln!(std::io::stdout(), "operator endpoints on http://{metrics}");
    }
    tracing::info!(%addr, public_url = %cfg.public_url_for(addr), "stablepay-api listening");
    let _ = writeln!(std::io::stdout(), "listening on http://{addr}");
    let server =
        stablepay_api::app::serve(listener, state, cfg.workers).map_err(|e| e.to_string())?;
    server.await.map_err(|e| e.to_string())
}

async fn migrate() -> Result<(), String> {
    let url = stablepay_config::database_url().map_err(|e| e.to_string())?;
    let url = url.expose_secret();
    let n = run_migrations(url).await?;
    println!("applied {n} migration(s)");
    Ok(())
}
