//! When a transaction the service sent is due to be sent again (D26, D31): one rule for
//! every kind of work, keeper charges, relays, sweeps and the fills and cancels that
//! replace them. A newest attempt not mined after [`REPLACE_AFTER_BLOCKS`] blocks, or
//! after [`RESEND_AFTER_SECS`] on a chain that mined nothing since (a node that lost it,
//! or a reorg that took it out, on a chain that mines only on demand), is due.

use crate::model::Timestamp;

/// Blocks after its newest broadcast before an unmined transaction is replaced: long
/// enough for one paying the going rate to be included, short enough that one stuck nonce
/// holds the ones after it for seconds on Base.
pub const REPLACE_AFTER_BLOCKS: u64 = 3;

/// Seconds after its newest broadcast before an unmined transaction is sent again even
/// when no block came (six Base blocks).
pub const RESEND_AFTER_SECS: i64 = 12;

/// Whether the newest attempt, broadcast at `last_broadcast_at` when the head was
/// `sent_block`, is due to be sent again at `now` with the chain at `head`.
pub fn resend_due(
    sent_block: u64,
    head: u64,
    last_broadcast_at: Timestamp,
    now: Timestamp,
) -> bool {
    head.saturating_sub(sent_block) >= REPLACE_AFTER_BLOCKS
        || now.unix_seconds() - last_broadcast_at.unix_seconds() >= RESEND_AFTER_SECS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
    }

    #[test]
    fn three_blocks_or_twelve_seconds_make_an_attempt_due() {
        assert!(!resend_due(100, 102, at(0), at(11)));
        assert!(resend_due(100, 103, at(0), at(0)), "three blocks");
        assert!(
            resend_due(100, 100, at(0), at(12)),
            "twelve seconds, no block"
        );
        // A head behind the broadcast (another provider) is no block at all.
        assert!(!resend_due(100, 90, at(0), at(1)));
    }
}
