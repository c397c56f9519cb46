//! The per-chain budget of relayer gas lost to reverts (D30): when relays that reverted
//! used more than a configured share of the relayer's gas over the last hour, relaying
//! pauses on that chain (the page falls back to paying with a transaction or to the
//! deposit address) until the share falls back under the budget.

/// The window the budget is judged over.
pub const WINDOW_SECS: i64 = 3600;

/// Relayer gas over the window: of the relays that reverted, and of every relay mined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayGas {
    pub reverted: u64,
    pub spent: u64,
}

/// `STABLEPAY_RELAYER_REVERT_BUDGET_PERCENT` and `STABLEPAY_RELAYER_REVERT_BUDGET_MIN_GAS`:
/// the share of the window's relayer gas that reverts may use, and the reverted gas under
/// which relaying never pauses (one revert on a quiet chain is 100 % of its gas; it cools
/// its payer down, it does not stop every merchant's buyers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevertBudget {
    percent: u8,
    min_gas: u64,
}

/// Why relaying is paused on a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("relays that reverted used {} of the relayer's {} gas in the last hour, over its {percent} % budget", gas.reverted, gas.spent)]
pub struct RelayPause {
    pub gas: RelayGas,
    pub percent: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a whole percentage from 1 to 100, not {0}")]
pub struct BadBudget(pub u64);

impl RevertBudget {
    /// The default: 10 % of the window's gas, once reverts used at least 1,000,000 gas
    /// (about eight reverted one-signature payments).
    pub const DEFAULT: RevertBudget = RevertBudget {
        percent: 10,
        min_gas: 1_000_000,
    };

    pub fn new(percent: u64, min_gas: u64) -> Result<Self, BadBudget> {
        match u8::try_from(percent) {
            Ok(p @ 1..=100) => Ok(Self {
                percent: p,
                min_gas,
            }),
            _ => Err(BadBudget(percent)),
        }
    }

    pub fn percent(&self) -> u8 {
        self.percent
    }

    pub fn min_gas(&self) -> u64 {
        self.min_gas
    }

    /// `Some` when the window's reverted gas is at least the minimum and more than the
    /// budget's share of all the relayer's gas in it (integer arithmetic, no rounding).
    pub fn judge(&self, gas: RelayGas) -> Option<RelayPause> {
        let over =
            u128::from(gas.reverted) * 100 > u128::from(self.percent) * u128::from(gas.spent);
        (gas.reverted >= self.min_gas && gas.reverted > 0 && over).then_some(RelayPause {
            gas,
            percent: self.percent,
        })
    }
}

impl Default for RevertBudget {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gas(reverted: u64, spent: u64) -> RelayGas {
        RelayGas { reverted, spent }
    }

    #[test]
    fn reverts_over_the_share_pause_once_over_the_minimum() {
        let budget = RevertBudget::new(10, 1_000_000).unwrap();
        // 10 % exactly is within the budget; a unit more is over it.
        assert_eq!(budget.judge(gas(1_000_000, 10_000_000)), None);
        let pause = budget.judge(gas(1_000_001, 10_000_000)).unwrap();
        assert_eq!(pause.gas.reverted, 1_000_001);
        assert_eq!(pause.percent, 10);
        // All of a quiet hour's gas, but under the minimum: the payer cools down instead.
        assert_eq!(budget.judge(gas(243_820, 243_820)), None);
        assert_eq!(budget.judge(gas(0, 0)), None);
    }

    #[test]
    fn a_zero_minimum_pauses_on_the_first_revert_over_the_share() {
        let budget = RevertBudget::new(50, 0).unwrap();
        assert!(budget.judge(gas(118_866, 118_866)).is_some());
        assert_eq!(budget.judge(gas(0, 500_000)), None);
        assert_eq!(budget.judge(gas(100_000, 200_000)), None);
    }

    #[test]
    fn budgets_are_whole_percentages() {
        assert_eq!(RevertBudget::new(0, 0), Err(BadBudget(0)));
        assert_eq!(RevertBudget::new(101, 0), Err(BadBudget(101)));
        assert_eq!(RevertBudget::new(100, 5).unwrap().percent(), 100);
        assert_eq!(RevertBudget::default(), RevertBudget::DEFAULT);
    }

    #[test]
    fn the_reason_names_the_gas_and_the_budget() {
        let pause = RevertBudget::new(10, 0)
            .unwrap()
            .judge(gas(300, 1000))
            .unwrap();
        assert_eq!(
            pause.to_string(),
            "relays that reverted used 300 of the relayer's 1000 gas in the last hour, over its 10 % budget"
        );
    }
}
