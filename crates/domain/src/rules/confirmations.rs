//! The one confirmation rule (D8, D17), for payments, refunds and the watcher's cursor.
//! A depth of N confirmations means the including block plus N−1 blocks after it.

/// How many confirmations a transaction in `block` has when the head is `head`
/// (0 when the block is ahead of the head, as a lagging node may report).
pub fn confirmations(head: u64, block: u64) -> u64 {
    head.saturating_add(1).saturating_sub(block)
}

/// Whether a transaction in `block` is at `depth` when the head is `head`.
pub fn is_confirmed(head: u64, block: u64, depth: u64) -> bool {
    confirmations(head, block) >= depth.max(1)
}

/// The highest block that is at `depth` when the head is `head`, if any.
pub fn deepest_confirmed_block(head: u64, depth: u64) -> Option<u64> {
    head.saturating_add(1).checked_sub(depth.max(1))
}

/// A pending payment whose recorded block was replaced is declared `failed` only after
/// its receipt stayed missing on this many checks, each at a different head (D17).
pub const RECEIPT_MISSES_BEFORE_FAILED: u32 = 3;

/// A receipt found missing at `head`, after `misses` earlier misses the last of which was
/// at `last_head`: a miss counts once per head. Returns the misses now and whether this
/// check counted (and so must be remembered).
pub fn count_receipt_miss(misses: u32, last_head: Option<u64>, head: u64) -> (u32, bool) {
    let counts = last_head.is_none_or(|h| head > h);
    (misses + u32::from(counts), counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn depth_counts_the_including_block() {
        assert!(is_confirmed(100, 100, 1));
        assert!(!is_confirmed(100, 100, 2));
        assert!(is_confirmed(101, 100, 2));
        assert!(
            !is_confirmed(99, 100, 1),
            "a block ahead of the head is unconfirmed"
        );
        assert_eq!(confirmations(99, 100), 0);
        assert_eq!(deepest_confirmed_block(101, 2), Some(100));
        assert_eq!(deepest_confirmed_block(0, 2), None);
        // A node reporting an absurd head never overflows.
        assert!(is_confirmed(u64::MAX, 5, 1));
        assert!(deepest_confirmed_block(u64::MAX, 2).is_some());
    }

    proptest! {
        #[test]
        fn confirmed_exactly_up_to_the_deepest_block(head in 0u64..1_000_000, depth in 1u64..64, block in 0u64..1_000_000) {
            let deepest = deepest_confirmed_block(head, depth);
            prop_assert_eq!(is_confirmed(head, block, depth), deepest.is_some_and(|d| block <= d));
        }
    }
}
