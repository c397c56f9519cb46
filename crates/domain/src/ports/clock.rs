use crate::model::Timestamp;

/// The current time; a port so rules about expiry are testable.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// The wall clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::new(chrono::Utc::now())
    }
}

/// The wall clock plus an offset a test moves forward: time still passes, and
/// `advance` makes sessions and challenges expire without editing their rows. A test
/// whose outcome depends on how much time passes (a per-minute limit) `freeze`s it.
#[derive(Debug, Default)]
pub struct AdjustableClock {
    offset_ms: std::sync::atomic::AtomicI64,
    /// Set once frozen: the wall clock's reading from then on.
    frozen: std::sync::OnceLock<chrono::DateTime<chrono::Utc>>,
}

impl AdjustableClock {
    pub fn advance(&self, by: std::time::Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.offset_ms
            .fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
    }

    /// Stops the wall clock's part at its current reading: from then on only `advance`
    /// moves the time, so a slow machine and a fast one see the same times.
    pub fn freeze(&self) {
        self.frozen.get_or_init(chrono::Utc::now);
    }
}

impl Clock for AdjustableClock {
    fn now(&self) -> Timestamp {
        let offset = self.offset_ms.load(std::sync::atomic::Ordering::SeqCst);
        let wall = self.frozen.get().copied().unwrap_or_else(chrono::Utc::now);
        Timestamp::new(wall + chrono::Duration::milliseconds(offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adjustable_clock_moves_only_forward_by_what_it_is_told() {
        let clock = AdjustableClock::default();
        let before = SystemClock.now();
        clock.advance(std::time::Duration::from_secs(3600));
        let later = clock.now();
        let gap = later.as_datetime() - before.as_datetime();
        assert!(gap >= chrono::Duration::seconds(3600), "{gap}");
        assert!(gap < chrono::Duration::seconds(3660), "{gap}");
    }

    #[test]
    fn a_frozen_clock_moves_only_when_advanced() {
        let clock = AdjustableClock::default();
        clock.advance(std::time::Duration::from_secs(60));
        clock.freeze();
        let stopped = clock.now();
        clock.freeze();
        assert_eq!(clock.now(), stopped, "freezing again changes nothing");
        clock.advance(std::time::Duration::from_millis(1500));
        let moved = clock.now().as_datetime() - stopped.as_datetime();
        assert_eq!(moved, chrono::Duration::milliseconds(1500));
    }
}
