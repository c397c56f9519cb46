//! EIP-1559 fees for the service's own transactions (D26): keeper charges, relayed
//! payments and deposit sweeps. The tip is the median of what the last blocks' included
//! transactions paid (never below [`MIN_TIP_WEI`], and never more than the cap leaves
//! above the next base fee); the fee cap leaves room for the base fee to double, and
//! never exceeds the operator's `STABLEPAY_MAX_FEE_GWEI_<chain>`. When the next block's
//! base fee and the smallest tip are over that cap, nothing is sent: the work waits for
//! cheaper blocks rather than paying more than the operator allowed.

use ethers::providers::Middleware;
use ethers::types::{BlockNumber, FeeHistory, U256};
use stablepay_domain::ports::ChainError;
use stablepay_domain::ChainId;

use crate::EvmChain;

/// Blocks of history the tip is taken from.
pub const HISTORY_BLOCKS: u64 = 10;
/// The lowest tip offered: 0.001 gwei, what Base's blocks usually include at.
pub const MIN_TIP_WEI: u128 = 1_000_000;
/// `STABLEPAY_MAX_FEE_GWEI_<chain>` when unset: 2 gwei (Base's base fee is usually a
/// hundredth of that; a 250k-gas payment then costs at most 0.0005 ETH).
pub const DEFAULT_MAX_FEE_WEI: u128 = 2_000_000_000;

/// The two EIP-1559 fee fields of a transaction, in wei.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fees {
    pub max_fee_per_gas: u128,
    pub max_priority_fee_per_gas: u128,
}

/// Why no fees were offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeeRefusal {
    /// The next block's base fee plus the tip is over the operator's cap.
    AboveCap { needed_wei: u128, cap_wei: u128 },
}

impl std::fmt::Display for FeeRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::AboveCap { needed_wei, cap_wei } => write!(
                f,
                "fees of {needed_wei} wei per gas are over the cap of {cap_wei} (STABLEPAY_MAX_FEE_GWEI_<chain>); waiting for cheaper blocks"
            ),
        }
    }
}

/// Fees for the next block: `next_base_fee` (wei) and the tips the last blocks' median
/// transactions paid, under `cap` (wei).
pub fn fees_for(next_base_fee: u128, tips: &[u128], cap: u128) -> Result<Fees, FeeRefusal> {
    let mut sorted = tips.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let needed = next_base_fee.saturating_add(MIN_TIP_WEI);
    if needed > cap {
        return Err(FeeRefusal::AboveCap {
            needed_wei: needed,
            cap_wei: cap,
        });
    }
    // Others' generous tips do not carry ours past the cap.
    let tip = median.max(MIN_TIP_WEI).min(cap - next_base_fee);
    // Room for two full blocks in a row (the base fee rises at most 12.5 % a block).
    let max_fee = next_base_fee.saturating_mul(2).saturating_add(tip).min(cap);
    Ok(Fees {
        max_fee_per_gas: max_fee,
        max_priority_fee_per_gas: tip,
    })
}

impl Fees {
    /// The fees of a replacement at the same nonce: each at least 12.5 % above these
    /// (nodes take a replacement at 10 % more of both) and at least what the chain asks
    /// `now`. `None` when the cap leaves no room: the transaction is re-sent as it is.
    pub fn bumped(&self, now: &Fees, cap: u128) -> Option<Fees> {
        let up = |wei: u128| wei.saturating_add(wei.div_ceil(8));
        let max_fee = up(self.max_fee_per_gas).max(now.max_fee_per_gas);
        let tip = up(self.max_priority_fee_per_gas).max(now.max_priority_fee_per_gas);
        (max_fee <= cap).then_some(Fees {
            max_fee_per_gas: max_fee,
            max_priority_fee_per_gas: tip.min(max_fee),
        })
    }
}

/// What a fee history says: the next block's base fee and each block's median tip. A
/// history without the next base fee, or with values beyond u128, is malformed: unknown.
fn read_history(history: &FeeHistory) -> Result<(u128, Vec<u128>), ChainError> {
    let malformed = || ChainError::Unavailable("eth_feeHistory: malformed answer".into());
    let next = history
        .base_fee_per_gas
        .last()
        .copied()
        .ok_or_else(malformed)
        .and_then(|b| u128::try_from(b).map_err(|_| malformed()))?;
    let tips = history
        .reward
        .iter()
        .filter_map(|block| block.first().copied())
        .map(|t| u128::try_from(t).map_err(|_| malformed()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((next, tips))
}

impl EvmChain {
    /// Fees for a transaction sent now on `chain`, under the chain's cap. Over the cap is
    /// `ChainError::Unavailable` with the reason (the sender waits and asks again).
    pub async fn suggest_fees(&self, chain: ChainId) -> Result<Fees, ChainError> {
        let provider = self.provider(chain)?;
        let history = self
            .timed(
                "eth_feeHistory",
                provider.fee_history(U256::from(HISTORY_BLOCKS), BlockNumber::Latest, &[50.0]),
            )
            .await?;
        let (next, tips) = read_history(&history)?;
        fees_for(next, &tips, self.max_fee_wei(chain))
            .map_err(|refusal| ChainError::Unavailable(refusal.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GWEI: u128 = 1_000_000_000;

    #[test]
    fn the_tip_is_the_median_and_the_cap_leaves_room_for_two_full_blocks() {
        let fees = fees_for(GWEI / 100, &[3_000_000, 1_000_000, 2_000_000], 2 * GWEI).unwrap();
        assert_eq!(
            fees,
            Fees {
                max_fee_per_gas: 2 * GWEI / 100 + 2_000_000,
                max_priority_fee_per_gas: 2_000_000,
            }
        );
        // Tips others overpay are followed only as far as the cap allows.
        let generous = fees_for(GWEI / 2, &[3 * GWEI], GWEI).unwrap();
        assert_eq!(
            generous,
            Fees {
                max_fee_per_gas: GWEI,
                max_priority_fee_per_gas: GWEI / 2,
            }
        );
        // Empty blocks pay no tips: the floor applies.
        assert_eq!(
            fees_for(0, &[0, 0], GWEI).unwrap().max_priority_fee_per_gas,
            MIN_TIP_WEI
        );
        assert_eq!(
            fees_for(0, &[], GWEI).unwrap().max_priority_fee_per_gas,
            MIN_TIP_WEI
        );
    }

    #[test]
    fn fees_stop_at_the_cap_and_nothing_is_offered_over_it() {
        let capped = fees_for(GWEI, &[MIN_TIP_WEI], GWEI + 10 * MIN_TIP_WEI).unwrap();
        assert_eq!(capped.max_fee_per_gas, GWEI + 10 * MIN_TIP_WEI);
        assert_eq!(
            fees_for(GWEI, &[MIN_TIP_WEI], GWEI),
            Err(FeeRefusal::AboveCap {
                needed_wei: GWEI + MIN_TIP_WEI,
                cap_wei: GWEI
            })
        );
    }

    #[test]
    fn a_replacement_raises_both_fees_by_an_eighth_or_to_what_the_chain_asks() {
        let sent = Fees {
            max_fee_per_gas: 800,
            max_priority_fee_per_gas: 80,
        };
        let calm = Fees {
            max_fee_per_gas: 100,
            max_priority_fee_per_gas: 10,
        };
        assert_eq!(
            sent.bumped(&calm, 10_000),
            Some(Fees {
                max_fee_per_gas: 900,
                max_priority_fee_per_gas: 90,
            })
        );
        let busy = Fees {
            max_fee_per_gas: 5_000,
            max_priority_fee_per_gas: 200,
        };
        assert_eq!(sent.bumped(&busy, 10_000), Some(busy));
        // Rounded up: 12.5 % of 7 is not 0.
        let tiny = Fees {
            max_fee_per_gas: 7,
            max_priority_fee_per_gas: 1,
        };
        assert_eq!(
            tiny.bumped(&tiny, 100),
            Some(Fees {
                max_fee_per_gas: 8,
                max_priority_fee_per_gas: 2,
            })
        );
        assert_eq!(sent.bumped(&calm, 899), None, "no room under the cap");
    }

    #[test]
    fn a_history_without_the_next_base_fee_is_unknown() {
        let empty = FeeHistory {
            base_fee_per_gas: vec![],
            gas_used_ratio: vec![],
            oldest_block: U256::zero(),
            reward: vec![],
        };
        assert!(read_history(&empty).is_err());
        let history = FeeHistory {
            base_fee_per_gas: vec![U256::from(7), U256::from(9)],
            gas_used_ratio: vec![0.5],
            oldest_block: U256::from(100),
            reward: vec![vec![U256::from(3)]],
        };
        assert_eq!(read_history(&history).unwrap(), (9, vec![3]));
        let huge = FeeHistory {
            base_fee_per_gas: vec![U256::MAX],
            ..history
        };
        assert!(read_history(&huge).is_err());
    }
}
