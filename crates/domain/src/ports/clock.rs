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
/// `advance` makes sessions and challenges expire without editing their rows.
#[derive(Debug, Default)]
pub struct AdjustableClock {
    offset_ms: std::sync::atomic::AtomicI64,
}

impl AdjustableClock {
    pub fn advance(&self, by: std::time::Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.offset_ms
            .fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for AdjustableClock {
    fn now(&self) -> Timestamp {
        let offset = self.offset_ms.load(std::sync::atomic::Ordering::SeqCst);
        Timestamp::new(chrono::Utc::now() + chrono::Duration::milliseconds(offset))
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
}
