//! Price feeds of a test's own (D34): `TestPriceFeed` contracts deployed for one stack, so
//! moving or ageing a rate never disturbs the other tests on the shared chain.

use std::sync::Arc;

use ethers::types::{I256, U256};
use stablepay_domain::FeedPair;
use stablepay_evm::bindings::test_price_feed::TestPriceFeed;

use crate::{ChainInfo, Client};

/// A deployed feed: its pair and contract.
pub struct Feed {
    pub pair: FeedPair,
    pub contract: TestPriceFeed<Client>,
}

impl Feed {
    pub fn address(&self) -> String {
        format!("{:#x}", self.contract.address())
    }

    /// A new round answering `answer` (8 decimals), updated now.
    pub async fn set(&self, answer: i64) {
        self.contract
            .update_answer(I256::from(answer))
            .send()
            .await
            .unwrap()
            .await
            .unwrap();
    }

    /// A new round answering `answer`, last updated `seconds_ago` before `now` (unix).
    pub async fn set_aged(&self, answer: i64, now: u64, seconds_ago: u64) {
        let round = self.contract.latest_round().call().await.unwrap() + 1;
        let at = U256::from(now - seconds_ago);
        self.contract
            .update_round_data(round, I256::from(answer), at, at)
            .send()
            .await
            .unwrap()
            .await
            .unwrap();
    }
}

/// Deploys one feed per `(pair, answer)` from `client`.
pub async fn deploy_feeds(client: &Arc<Client>, feeds: &[(FeedPair, i64)]) -> Vec<Feed> {
    let mut out = Vec::new();
    for (pair, answer) in feeds {
        let args = (8u8, I256::from(*answer), pair.description());
        let contract = TestPriceFeed::deploy(client.clone(), args)
            .unwrap()
            .send()
            .await
            .unwrap();
        out.push(Feed {
            pair: *pair,
            contract,
        });
    }
    out
}

/// `chain` with `feeds` in place of the shared dev feeds.
pub fn with_feeds(chain: &ChainInfo, feeds: &[Feed]) -> ChainInfo {
    ChainInfo {
        price_feeds: feeds.iter().map(|f| (f.pair, f.address())).collect(),
        ..chain.clone()
    }
}
