//! The interval between a loop's ticks, cut short by a stop: every loop of the worker
//! waits through here, so a stop is never kept waiting for a whole interval.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// How often a pause looks at `stop`.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Waits `interval`, or less once `stop` is set.
pub async fn pause(interval: Duration, stop: &AtomicBool) {
    let until = Instant::now() + interval;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= until {
            return;
        }
        tokio::time::sleep((until - now).min(STOP_CHECK)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_pause_lasts_its_interval_unless_stopped() {
        let stop = AtomicBool::new(false);
        let started = Instant::now();
        pause(Duration::from_millis(150), &stop).await;
        assert!(started.elapsed() >= Duration::from_millis(150));
        stop.store(true, Ordering::Relaxed);
        let started = Instant::now();
        pause(Duration::from_secs(600), &stop).await;
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "a stop cuts it short"
        );
    }
}
