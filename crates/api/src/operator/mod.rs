//! The operator's commands (`stablepay-api merchants|keys|users …`): each parses its
//! arguments into domain types, calls the store or a use case, and prints what it did
//! through one formatter ([`Record`]): a tab-separated line, or with `--json` one JSON
//! object of the same fields. Notes for the person at the terminal go to stderr, so
//! stdout stays machine-readable.

mod reconcile;
mod record;
mod screening;

use clap::Subcommand;
use secrecy::ExposeSecret;
use stablepay_domain::ports::SystemClock;
use stablepay_domain::rules::dashboard_auth::SessionPolicy;
use stablepay_domain::services::{
    create_api_key, create_merchant, disable_dashboard_user, invite_dashboard_user,
    list_any_api_keys, list_dashboard_users, list_merchants, revoke_any_api_key,
    set_merchant_fee_tier,
};
use stablepay_domain::{ApiKeyId, DashboardUserId, Email, FeeTier, Merchant, MerchantId, Mode};
use stablepay_postgres::{PgStore, PoolConfig, SecretCipher};

use crate::config;
pub use reconcile::{reconcile, ReconcileArgs};
pub use record::Record;
pub use screening::{screening, ScreeningCommand};

#[derive(Subcommand)]
pub enum UserCommand {
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
pub enum MerchantCommand {
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
pub enum KeyCommand {
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

pub async fn merchants(cmd: MerchantCommand) -> Result<(), String> {
    let store = admin_store().await?;
    match cmd {
        MerchantCommand::Create {
            name,
            fee_tier,
            fee_bps,
            json,
        } => {
            let tier = FeeTier::from_parts(&fee_tier, fee_bps)?;
            let m = create_merchant(&name, tier, &store)
                .await
                .map_err(|e| e.to_string())?;
            merchant_record(&m).print(json);
        }
        MerchantCommand::List { json } => {
            for m in list_merchants(&store).await.map_err(|e| e.to_string())? {
                merchant_record(&m).print(json);
            }
        }
        MerchantCommand::SetTier {
            merchant,
            fee_tier,
            fee_bps,
        } => {
            let tier = FeeTier::from_parts(&fee_tier, fee_bps)?;
            set_merchant_fee_tier(merchant_id(&merchant)?, tier, &store)
                .await
                .map_err(|e| e.to_string())?;
            Record::new()
                .with("id", merchant)
                .with("fee_tier", tier.label())
                .with("fee_bps", tier.bps())
                .print(false);
            eprintln!("The new tier applies to new sessions.");
        }
    }
    Ok(())
}

pub async fn keys(cmd: KeyCommand) -> Result<(), String> {
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
                &stablepay_domain::Changer::OPERATOR,
                &store,
                &SystemClock,
            )
            .await
            .map_err(|e| format!("cannot create key for {merchant}: {e}"))?;
            Record::new()
                .with("id", key.key.id.to_string())
                .with("merchant", merchant)
                .with("mode", mode.as_str())
                .with("secret", key.secret.clone())
                .print(json);
            eprintln!("The secret is shown only now; store it safely.");
        }
        KeyCommand::List { merchant, json } => {
            let merchant = merchant.as_deref().map(merchant_id).transpose()?;
            for k in list_any_api_keys(merchant, &store)
                .await
                .map_err(|e| e.to_string())?
            {
                Record::new()
                    .with("id", k.id.to_string())
                    .with("merchant", k.merchant_id.to_string())
                    .with("mode", k.mode.as_str())
                    .with("last4", k.last4.clone())
                    .with("created_at", k.created_at.to_string())
                    .with("revoked_at", k.revoked_at.map(|t| t.to_string()))
                    .print(json);
            }
        }
        KeyCommand::Revoke { key_id } => {
            let id = ApiKeyId::parse(&key_id).map_err(|e| e.to_string())?;
            revoke_any_api_key(id, &store, &SystemClock)
                .await
                .map_err(|e| format!("cannot revoke {key_id}: {e}"))?;
            Record::new()
                .with("id", key_id)
                .with("status", "revoked")
                .print(false);
        }
    }
    Ok(())
}

pub async fn users(cmd: UserCommand) -> Result<(), String> {
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
            Record::new()
                .with("id", invite.user.id.to_string())
                .with("merchant", merchant)
                .with("email", invite.user.email.as_str())
                .with("setup_url", link)
                .print(json);
            eprintln!("Send the link to the user; it works once, for 72 hours.");
        }
        UserCommand::List { merchant, json } => {
            let merchant = merchant.as_deref().map(merchant_id).transpose()?;
            for u in list_dashboard_users(merchant, &store)
                .await
                .map_err(|e| e.to_string())?
            {
                Record::new()
                    .with("id", u.id.to_string())
                    .with("merchant", u.merchant_id.to_string())
                    .with("email", u.email.as_str())
                    .with("status", u.status.as_str())
                    .with("totp", u.totp_enabled)
                    .with("created_at", u.created_at.to_string())
                    .print(json);
            }
        }
        UserCommand::Disable { user_id } => {
            let id = DashboardUserId::parse(&user_id).map_err(|e| e.to_string())?;
            disable_dashboard_user(id, &store, &SystemClock)
                .await
                .map_err(|e| e.to_string())?;
            Record::new()
                .with("id", user_id)
                .with("status", "disabled")
                .print(false);
            eprintln!("Every session of the user is ended.");
        }
    }
    Ok(())
}

fn merchant_record(m: &Merchant) -> Record {
    Record::new()
        .with("id", m.id.to_string())
        .with("name", m.name.clone())
        .with("fee_tier", m.fee_tier.label())
        .with("fee_bps", m.fee_tier.bps())
}
