//! `stablepay-api contracts deploy` (D27): parses the operator's flags and key, deploys
//! through `stablepay_evm::deploy`, prints progress on stderr and the lines to configure on
//! stdout (so `... >> stablepay.env` keeps only them).

use std::path::PathBuf;

use stablepay_domain::{Address, ChainId, PrivateKey};
use stablepay_evm::deploy::{deploy_contracts, DeployPlan};

/// Deploy the checkout router, subscription manager and deposit factory from the
/// committed bytecode; print the `STABLEPAY_*_<chain>` lines to configure.
#[derive(clap::Args, Debug)]
pub struct DeployArgs {
    /// 8453 (Base) or 84532 (Base Sepolia).
    #[arg(long)]
    chain_id: u64,
    /// The chain's RPC (else `STABLEPAY_RPC_URL_<chain>`, better for a URL with an API key:
    /// a flag shows in `ps` and shell history).
    #[arg(long)]
    rpc_url: Option<String>,
    /// The address of STABLEPAY_OPERATOR_KEY (signs payment intents).
    #[arg(long)]
    operator: String,
    /// The address of STABLEPAY_KEEPER_KEY (sends recurring charges).
    #[arg(long)]
    keeper: String,
    /// Where fees go.
    #[arg(long)]
    treasury: String,
    /// Blocks before a deployment counts (default `STABLEPAY_CONFIRMATIONS_<chain>`, else 10).
    #[arg(long)]
    confirmations: Option<u64>,
    /// A file holding the deployer's hex key (else STABLEPAY_DEPLOYER_KEY).
    #[arg(long)]
    deployer_key_file: Option<PathBuf>,
    /// A router a previous run deployed: verified and kept.
    #[arg(long)]
    router: Option<String>,
    /// A subscription manager a previous run deployed: verified and kept.
    #[arg(long)]
    subscription_manager: Option<String>,
    /// A deposit factory a previous run deployed: verified and kept.
    #[arg(long)]
    deposit_factory: Option<String>,
}

fn address(flag: &str, value: &str) -> Result<Address, String> {
    Address::parse(value.trim()).map_err(|e| format!("{flag}: {e}"))
}

fn optional(flag: &str, value: &Option<String>) -> Result<Option<Address>, String> {
    value.as_deref().map(|v| address(flag, v)).transpose()
}

fn deployer_key(file: &Option<PathBuf>) -> Result<PrivateKey, String> {
    let (source, text) = match file {
        Some(path) => (
            "--deployer-key-file",
            std::fs::read_to_string(path)
                .map_err(|e| format!("--deployer-key-file {}: {e}", path.display()))?,
        ),
        None => (
            "STABLEPAY_DEPLOYER_KEY",
            stablepay_config::optional("STABLEPAY_DEPLOYER_KEY")
                .ok_or("set STABLEPAY_DEPLOYER_KEY or --deployer-key-file to the deployer's key")?,
        ),
    };
    // The key's text never reaches a message.
    PrivateKey::parse_hex(text.trim()).map_err(|_| format!("{source}: not a 32-byte hex key"))
}

pub async fn deploy(args: DeployArgs) -> Result<(), String> {
    let chain = ChainId::from_id(args.chain_id)
        .ok_or_else(|| format!("--chain-id {}: must be 8453 or 84532", args.chain_id))?;
    let confirmations = match args.confirmations {
        Some(n) => n,
        None => stablepay_config::number(&format!("STABLEPAY_CONFIRMATIONS_{}", chain.id()), 10)
            .map_err(|e| e.to_string())?,
    };
    let plan = DeployPlan {
        chain,
        operator: address("--operator", &args.operator)?,
        keeper: address("--keeper", &args.keeper)?,
        treasury: address("--treasury", &args.treasury)?,
        confirmations,
        router: optional("--router", &args.router)?,
        manager: optional("--subscription-manager", &args.subscription_manager)?,
        factory: optional("--deposit-factory", &args.deposit_factory)?,
    };
    let rpc_var = format!("STABLEPAY_RPC_URL_{}", chain.id());
    let rpc_url = match args.rpc_url {
        Some(url) => url,
        None => stablepay_config::optional(&rpc_var)
            .and_then(|list| list.split(',').next().map(|u| u.trim().to_owned()))
            .ok_or_else(|| format!("set --rpc-url or {rpc_var}"))?,
    };
    let key = deployer_key(&args.deployer_key_file)?;
    let deployed = deploy_contracts(&rpc_url, &key, &plan, |line| eprintln!("{line}")).await?;
    print!("{}", deployed.env_lines(chain, plan.treasury));
    Ok(())
}
