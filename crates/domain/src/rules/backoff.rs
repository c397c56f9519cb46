//! The one backoff rule (webhook deliveries, deposit sweeps): after the `failures`-th
//! failure in a row, wait the base delay doubled per earlier failure, never more than a
//! cap.

/// The first retry of a sweep entry that failed (its session's money stays at its deposit
/// address); it doubles per failure in a row.
pub const SWEEP_RETRY_SECS: i64 = 30;
/// The longest wait between a sweep entry's retries.
pub const SWEEP_RETRY_MAX_SECS: i64 = 3600;

/// Seconds before a sweep entry that failed `failures` times in a row is tried again.
pub fn sweep_retry_delay(failures: u32) -> i64 {
    delay_after(SWEEP_RETRY_SECS, failures, SWEEP_RETRY_MAX_SECS)
}

/// Seconds to wait after the `failures`-th failure (1 = the first): `base_secs` ×
/// 2^(failures − 1), at most `max_secs`. No failure yet waits nothing.
pub fn delay_after(base_secs: i64, failures: u32, max_secs: i64) -> i64 {
    if failures == 0 {
        return 0;
    }
    let doublings = (failures - 1).min(62);
    base_secs
        .saturating_mul(1i64 << doublings)
        .min(max_secs)
        .max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_per_failure_up_to_its_cap() {
        let delays: Vec<i64> = (0..=9).map(|n| delay_after(30, n, 3600)).collect();
        assert_eq!(delays, [0, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
        assert_eq!(
            delay_after(30, 200, i64::MAX),
            i64::MAX,
            "saturates, never wraps"
        );
        assert_eq!(delay_after(30, 5, i64::MAX), 480);
        assert_eq!(
            (
                sweep_retry_delay(1),
                sweep_retry_delay(3),
                sweep_retry_delay(20)
            ),
            (30, 120, 3600)
        );
    }
}
