//! Fee arithmetic (D2): fee = floor(amount × bps / 10000); net = amount − fee.

use crate::model::Amount;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeSplit {
    pub fee_micros: u64,
    pub net_micros: u64,
}

pub fn split(amount: Amount, fee_bps: u16) -> FeeSplit {
    // u128: amount ≤ 1e15 micro-units and bps ≤ 10000 cannot overflow.
    let fee = (u128::from(amount.micros()) * u128::from(fee_bps) / 10_000) as u64;
    FeeSplit {
        fee_micros: fee,
        net_micros: amount.micros() - fee,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MAX_MICROS;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        let a = Amount::parse("10").unwrap();
        assert_eq!(
            split(a, 100),
            FeeSplit {
                fee_micros: 100_000,
                net_micros: 9_900_000
            }
        );
        assert_eq!(
            split(a, 0),
            FeeSplit {
                fee_micros: 0,
                net_micros: 10_000_000
            }
        );
        // Rounds down: 0.000199 × 1% = 0.00000199 → 0.000001.
        assert_eq!(split(Amount::parse("0.000199").unwrap(), 100).fee_micros, 1);
        assert_eq!(split(Amount::parse("0.000099").unwrap(), 100).fee_micros, 0);
    }

    proptest! {
        #[test]
        fn fee_plus_net_is_amount(m in 1..=MAX_MICROS, bps in 0u16..=1000) {
            let s = split(Amount::from_micros(m).unwrap(), bps);
            prop_assert_eq!(s.fee_micros + s.net_micros, m);
            prop_assert!(u128::from(s.fee_micros) * 10_000 <= u128::from(m) * u128::from(bps));
        }
    }
}
