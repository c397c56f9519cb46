//! `stablepay-api`: the HTTP API (`serve`, the default) and the operator commands.

use std::io::Write;
use std::net::TcpListener;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use secrecy::ExposeSecret;
use stablepay_api::config::{self, ServeConfig};
use stablepay_config::KeyRole;
use stablepay_domain::ports::{DashboardUserStore, SystemClock};
use stablepay_domain::rules::dashboard_auth::SessionPolicy;
use stablepay_domain::services::{create_api_key, invite_dashboard_user};
use stablepay_domain::{ApiKeyId, DashboardUserId, Email, FeeTier, MerchantId, Mode};
use stablepay_postgres::{run_migrations, PgStore, PoolConfig, SecretCipher};

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
}

#[derive(Subcommand)]
enum ContractsCommand {
    /// Deploy the checkout router, subscription manager and deposit factory from the
    /// committed bytecode; print the STABLEPAY_*_<chain> lines to configure.
    Deploy(stablepay_api::contracts::DeployArgs),
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create a dashboard user; prints a one-time setup link (valid 72 h).
    Create {
        #[arg(long)]
        merchant: String,
        #[arg(long)]
        email: String,
        #[arg(long)]
        json: bool,
    },
    /// List dashboard users.
    List {
        #[arg(long)]
        merchant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Disable a user and end every session of theirs.
    Disable { user_id: String },
}

#[derive(Subcommand)]
enum MerchantCommand {
    /// Create a merchant.
    Create {
        #[arg(long)]
        name: String,
        /// standard (100 bps), growth (75), scale (50) or custom (with --fee-bps).
        #[arg(long, default_value = "standard")]
        fee_tier: String,
        #[arg(long)]
        fee_bps: Option<u16>,
        #[arg(long)]
        json: bool,
    },
    /// List merchants.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Change a merchant's fee tier (new sessions only; snapshots are kept).
    SetTier {
        #[arg(long)]
        merchant: String,
        #[arg(long)]
        fee_tier: String,
        #[arg(long)]
        fee_bps: Option<u16>,
    },
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create an API key; the secret is printed once.
    Create {
        #[arg(long)]
        merchant: String,
        #[arg(long, value_parser = ["test", "live"])]
        mode: String,
        /// Requests per minute for this key (default: STABLEPAY_RATE_LIMIT_PER_MIN).
        #[arg(long)]
        rate_limit: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// List keys (never their secrets).
    List {
        #[arg(long)]
        merchant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key; it stops working on the next request.
    Revoke { key_id: String },
}

#[tokio::main]
async fn main() -> ExitCode {
    stablepay_telemetry::init_tracing();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
        Command::Migrate => migrate().await,
        Command::Doctor => stablepay_api::doctor::run().await,
        Command::Contracts(ContractsCommand::Deploy(args)) => {
            stablepay_api::contracts::deploy(args).await
        }
        Command::Merchants(cmd) => merchants(cmd).await,
        Command::Keys(cmd) => keys(cmd).await,
        Command::Users(cmd) => users(cmd).await,
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
                let relayer = stablepay_api::relayer::EvmRelayer::new(
                    reader.clone(),
                    store.clone(),
                    std::sync::Arc::new(stablepay_domain::ports::SystemClock),
                    r.key,
                    r.min_balance_wei,
                )?;
                tracing::info!(relayer = %relayer.address(), "relaying one-signature payments");
                Some(std::sync::Arc::new(relayer))
            }
            None => None,
        };
    let tokens = chain_env.tokens;
    let chain = stablepay_api::ChainSettings {
        reader,
        relayer,
        contracts: chain_env.contracts,
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
        std::sync::Arc::new(SystemClock),
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

/// Operator commands never touch webhook secrets, so they need no secrets key.
async fn admin_store() -> Result<PgStore, String> {
    let url = stablepay_config::database_url().map_err(|e| e.to_string())?;
    let url = url.expose_secret();
    let cipher = SecretCipher::new(&[0u8; 32]).map_err(|e| e.to_string())?;
    PgStore::connect(
        url,
        &PoolConfig {
            max_connections: 2,
            ..PoolConfig::default()
        },
        cipher,
    )
    .map_err(|e| e.to_string())
}

fn merchant_id(s: &str) -> Result<MerchantId, String> {
    MerchantId::parse(s).map_err(|e| e.to_string())
}

async fn merchants(cmd: MerchantCommand) -> Result<(), String> {
    let store = admin_store().await?;
    match cmd {
        MerchantCommand::Create {
            name,
            fee_tier,
            fee_bps,
            json,
        } => {
            let tier = FeeTier::from_parts(&fee_tier, fee_bps)?;
            let m = store
                .create_merchant(&name, tier)
                .await
                .map_err(|e| e.to_string())?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"id": m.id.to_string(), "name": m.name, "fee_tier": tier.label(), "fee_bps": tier.bps()})
                );
            } else {
                println!(
                    "{}\t{}\t{} ({} bps)",
                    m.id,
                    m.name,
                    tier.label(),
                    tier.bps()
                );
            }
        }
        MerchantCommand::List { json } => {
            for m in store.list_merchants().await.map_err(|e| e.to_string())? {
                if json {
                    println!(
                        "{}",
                        serde_json::json!({"id": m.id.to_string(), "name": m.name, "fee_tier": m.fee_tier.label(), "fee_bps": m.fee_tier.bps()})
                    );
                } else {
                    println!(
                        "{}\t{}\t{} ({} bps)",
                        m.id,
                        m.name,
                        m.fee_tier.label(),
                        m.fee_tier.bps()
                    );
                }
            }
        }
        MerchantCommand::SetTier {
            merchant,
            fee_tier,
            fee_bps,
        } => {
            let tier = FeeTier::from_parts(&fee_tier, fee_bps)?;
            store
                .set_fee_tier(merchant_id(&merchant)?, tier)
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "{merchant}: {} ({} bps) for new sessions",
                tier.label(),
                tier.bps()
            );
        }
    }
    Ok(())
}

async fn keys(cmd: KeyCommand) -> Result<(), String> {
    let store = admin_store().await?;
    match cmd {
        KeyCommand::Create {
            merchant,
            mode,
            rate_limit,
            json,
        } => {
            let mode = Mode::parse(&mode).ok_or("mode must be test or live")?;
            let key = create_api_key(
                merchant_id(&merchant)?,
                mode,
                rate_limit,
                &store,
                &SystemClock,
            )
            .await
            .map_err(|e| format!("cannot create key for {merchant}: {e}"))?;
            if json {
                println!(
                    "{}",
                    serde_json::json!({"id": key.key.id.to_string(), "merchant": merchant, "mode": mode.as_str(), "secret": key.secret})
                );
            } else {
                println!("{}\t{}\t{}", key.key.id, mode, key.secret);
                eprintln!("The secret is shown only now; store it safely.");
            }
        }
        KeyCommand::List { merchant, json } => {
            let merchant = merchant.as_deref().map(merchant_id).transpose()?;
            for k in store
                .list_api_keys(merchant)
                .await
                .map_err(|e| e.to_string())?
            {
                let revoked = k.revoked_at.map(|t| t.to_string());
                if json {
                    println!(
                        "{}",
                        serde_json::json!({"id": k.id.to_string(), "merchant": k.merchant_id.to_string(), "mode": k.mode.as_str(), "last4": k.last4, "created_at": k.created_at.to_string(), "revoked_at": revoked})
                    );
                } else {
                    println!(
                        "{}\t{}\t{}\t...{}\t{}",
                        k.id,
                        k.merchant_id,
                        k.mode,
                        k.last4,
                        revoked.as_deref().unwrap_or("active")
                    );
                }
            }
        }
        KeyCommand::Revoke { key_id } => {
            let id = ApiKeyId::parse(&key_id).map_err(|e| e.to_string())?;
            store
                .revoke_api_key(id)
                .await
                .map_err(|e| format!("cannot revoke {key_id}: {e}"))?;
            println!("revoked {key_id}");
        }
    }
    Ok(())
}

async fn users(cmd: UserCommand) -> Result<(), String> {
    let store = admin_store().await?;
    match cmd {
        UserCommand::Create {
            merchant,
            email,
            json,
        } => {
            let email = Email::parse(&email).map_err(|e| format!("--email {e}"))?;
            let public_url = config::public_url().map_err(|e| e.to_string())?;
            let invite = invite_dashboard_user(
                merchant_id(&merchant)?,
                email,
                &SessionPolicy::default(),
                &store,
                &SystemClock,
            )
            .await
            .map_err(|e| format!("cannot create the user: {e}"))?;
            let link = format!("{public_url}/dashboard/setup/{}", invite.setup_token);
            if json {
                println!(
                    "{}",
                    serde_json::json!({"id": invite.user.id.to_string(), "merchant": merchant, "email": invite.user.email.as_str(), "setup_url": link})
                );
            } else {
                println!("{}\t{}\t{link}", invite.user.id, invite.user.email);
                eprintln!("Send the link to the user; it works once, for 72 hours.");
            }
        }
        UserCommand::List { merchant, json } => {
            let merchant = merchant.as_deref().map(merchant_id).transpose()?;
            for u in store.users(merchant).await.map_err(|e| e.to_string())? {
                if json {
                    println!(
                        "{}",
                        serde_json::json!({"id": u.id.to_string(), "merchant": u.merchant_id.to_string(), "email": u.email.as_str(), "status": u.status.as_str(), "totp": u.totp_enabled, "created_at": u.created_at.to_string()})
                    );
                } else {
                    println!(
                        "{}\t{}\t{}\t{}{}",
                        u.id,
                        u.merchant_id,
                        u.email,
                        u.status.as_str(),
                        if u.totp_enabled { "\ttotp" } else { "" }
                    );
                }
            }
        }
        UserCommand::Disable { user_id } => {
            let id = DashboardUserId::parse(&user_id).map_err(|e| e.to_string())?;
            let now = stablepay_domain::ports::Clock::now(&SystemClock);
            if !store
                .disable_user(id, now)
                .await
                .map_err(|e| e.to_string())?
            {
                return Err(format!("no user {user_id}"));
            }
            println!("disabled {user_id}; its sessions are ended");
        }
    }
    Ok(())
}
