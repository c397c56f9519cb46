//! AggregatorV3 price feeds (D34): `latestRoundData()` and `decimals()`, read raw and
//! decoded strictly. An address that reverts either call is not a feed (a fact); a node
//! that fails or is late is unknown.

use ethers::types::U256;
use stablepay_domain::ports::ChainError;
use stablepay_domain::{Address, ChainId, FeedRound, Timestamp};

use crate::tokens::CallOutcome;
use crate::EvmChain;

const LATEST_ROUND_DATA: [u8; 4] = [0xfe, 0xaf, 0x96, 0x8c];
const DECIMALS: [u8; 4] = [0x31, 0x3c, 0xe5, 0x67];

fn malformed(what: &str) -> ChainError {
    ChainError::Unavailable(format!("{what}: malformed answer"))
}

impl EvmChain {
    /// The feed's latest round; `None` when `feed` answers no `latestRoundData()` or
    /// `decimals()`.
    pub(crate) async fn feed_round(
        &self,
        chain: ChainId,
        feed: Address,
    ) -> Result<Option<FeedRound>, ChainError> {
        let read = |selector: [u8; 4]| self.call_raw(chain, None, feed, selector.to_vec(), None);
        let (round, decimals) = tokio::join!(read(LATEST_ROUND_DATA), read(DECIMALS));
        let (CallOutcome::Returned(round), CallOutcome::Returned(decimals)) = (round?, decimals?)
        else {
            return Ok(None);
        };
        if round.is_empty() || decimals.is_empty() {
            // No code at the address: an empty answer, not a feed.
            return Ok(None);
        }
        decode_round(feed, &round, &decimals).map(Some)
    }
}

/// `(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80
/// answeredInRound)` and `uint8`.
fn decode_round(feed: Address, round: &[u8], decimals: &[u8]) -> Result<FeedRound, ChainError> {
    let word = |out: &[u8], i: usize| -> Option<[u8; 32]> {
        out.get(i * 32..(i + 1) * 32)?.try_into().ok()
    };
    let uint = |w: [u8; 32], bits: usize| -> Option<u128> {
        let v = U256::from_big_endian(&w);
        (v.bits() <= bits).then(|| v.as_u128())
    };
    let decimals = word(decimals, 0)
        .and_then(|w| uint(w, 8))
        .ok_or_else(|| malformed("decimals"))?;
    let bad = || malformed("latestRoundData");
    let round_id = word(round, 0).and_then(|w| uint(w, 80)).ok_or_else(bad)?;
    let answer = word(round, 1).and_then(int256_as_i128).ok_or_else(bad)?;
    let updated = word(round, 3).and_then(|w| uint(w, 63)).ok_or_else(bad)?;
    let updated_at = i64::try_from(updated)
        .ok()
        .and_then(Timestamp::from_unix_seconds)
        .ok_or_else(bad)?;
    Ok(FeedRound {
        feed,
        round_id,
        answer,
        decimals: decimals as u8,
        updated_at,
    })
}

/// A two's-complement int256 word that fits an i128.
fn int256_as_i128(w: [u8; 32]) -> Option<i128> {
    let (high, low) = w.split_at(16);
    let low = i128::from_be_bytes(low.try_into().ok()?);
    let sign = if low < 0 { 0xff } else { 0x00 };
    high.iter().all(|b| *b == sign).then_some(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(values: &[[u8; 32]]) -> Vec<u8> {
        values.concat()
    }

    fn uint_word(v: u128) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[16..].copy_from_slice(&v.to_be_bytes());
        w
    }

    fn int_word(v: i128) -> [u8; 32] {
        let mut w = [if v < 0 { 0xff } else { 0 }; 32];
        w[16..].copy_from_slice(&v.to_be_bytes());
        w
    }

    #[test]
    fn a_round_decodes_exactly_and_a_malformed_one_is_unknown() {
        let feed = Address::from_bytes([9; 20]);
        let round = words(&[
            uint_word(18_446_744_073_709_562_301),
            int_word(108_250_000),
            uint_word(1_800_000_000),
            uint_word(1_800_000_060),
            uint_word(18_446_744_073_709_562_301),
        ]);
        let got = decode_round(feed, &round, &uint_word(8)).unwrap();
        assert_eq!(got.round_id, 18_446_744_073_709_562_301);
        assert_eq!((got.answer, got.decimals), (108_250_000, 8));
        assert_eq!(got.updated_at.unix_seconds(), 1_800_000_060);
        // Negative answers decode as such (the rules refuse them).
        let negative = words(&[
            uint_word(1),
            int_word(-5),
            uint_word(0),
            uint_word(1),
            uint_word(1),
        ]);
        assert_eq!(
            decode_round(feed, &negative, &uint_word(8)).unwrap().answer,
            -5
        );
        // Short answers, a round id past uint80, decimals past uint8: malformed.
        assert!(decode_round(feed, &round[..96], &uint_word(8)).is_err());
        let mut wide = round.clone();
        wide[21] = 1;
        assert!(decode_round(feed, &wide, &uint_word(8)).is_err());
        assert!(decode_round(feed, &round, &uint_word(256)).is_err());
        let huge = words(&[
            uint_word(1),
            [0x7f; 32],
            uint_word(0),
            uint_word(1),
            uint_word(1),
        ]);
        assert!(decode_round(feed, &huge, &uint_word(8)).is_err());
    }
}
