//! `stablepay-worker`: the delivery loop, chain watchers and billing run here. The
//! loops arrive with the webhook-delivery and on-chain work; until then the binary
//! only reports that it has nothing to run.

fn main() {
    println!(
        "stablepay-worker {}: no background loops are enabled in this build (chains: {:?}, user agent {})",
        env!("CARGO_PKG_VERSION"),
        stablepay_evm::supported_chains().map(|c| c.id()),
        stablepay_delivery::USER_AGENT
    );
}
