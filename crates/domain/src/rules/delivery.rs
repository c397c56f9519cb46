//! Webhook delivery policy (spec "Delivery"): up to 5 attempts, backoff 30 s × 2^(n−1),
//! success is any 2xx within the deadline.

use crate::model::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryPolicy {
    pub backoff_base_secs: i64,
    pub max_attempts: u32,
    pub timeout_secs: u64,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        Self {
            backoff_base_secs: 30,
            max_attempts: 5,
            timeout_secs: 10,
        }
    }
}

impl DeliveryPolicy {
    /// When attempt `attempts_made + 1` is due after `attempts_made` failures, or `None`
    /// when the budget is spent (the event becomes `failed`).
    pub fn next_attempt_at(&self, attempts_made: u32, failed_at: Timestamp) -> Option<Timestamp> {
        if attempts_made >= self.max_attempts {
            return None;
        }
        let exponent = attempts_made.saturating_sub(1).min(30);
        let delay = self.backoff_base_secs.saturating_mul(1i64 << exponent);
        Some(failed_at.plus_seconds(delay))
    }
}

pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    #[test]
    fn schedule_doubles_from_thirty_seconds_and_stops_after_five() {
        let p = DeliveryPolicy::default();
        let t0 = Timestamp::new(Utc.timestamp_opt(0, 0).unwrap());
        let delays: Vec<Option<i64>> = (1..=5)
            .map(|n| p.next_attempt_at(n, t0).map(|t| t.unix_seconds()))
            .collect();
        assert_eq!(delays, [Some(30), Some(60), Some(120), Some(240), None]);
    }

    #[test]
    fn success_is_2xx() {
        assert!(is_success(200) && is_success(204) && is_success(299));
        assert!(!is_success(301) && !is_success(500) && !is_success(199));
    }
}
