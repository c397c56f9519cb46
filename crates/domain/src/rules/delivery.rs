//! Webhook delivery policy (spec "Delivery"): up to 5 attempts, backoff 30 s × 2^(n−1),
//! success is any 2xx within the deadline.

use crate::model::Timestamp;
use crate::ports::HealthRule;
use crate::rules::backoff::delay_after;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryPolicy {
    pub backoff_base_secs: i64,
    pub max_attempts: u32,
    pub timeout_secs: u64,
    /// An endpoint whose sent attempts have all failed for this long is disabled (D12).
    pub disable_after_secs: i64,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        Self {
            backoff_base_secs: 30,
            max_attempts: 5,
            timeout_secs: 10,
            disable_after_secs: 5 * 86_400,
        }
    }
}

impl DeliveryPolicy {
    /// The endpoint-health rule the recorder applies, with the reason its record shows.
    pub fn health_rule(&self) -> HealthRule {
        HealthRule {
            disable_after_secs: self.disable_after_secs,
            reason: format!(
                "disabled automatically: every delivery attempt failed for {}; fix the \
                 receiver, then set status to enabled (failed deliveries can be replayed \
                 with recover)",
                human_period(self.disable_after_secs)
            ),
        }
    }

    /// When attempt `attempts_made + 1` is due after `attempts_made` failures, or `None`
    /// when the budget is spent (the event becomes `failed`).
    pub fn next_attempt_at(&self, attempts_made: u32, failed_at: Timestamp) -> Option<Timestamp> {
        if attempts_made >= self.max_attempts {
            return None;
        }
        let delay = delay_after(self.backoff_base_secs, attempts_made.max(1), i64::MAX);
        Some(failed_at.plus_seconds(delay))
    }
}

/// "5 days", "2 hours", "90 seconds": the largest whole unit.
fn human_period(secs: i64) -> String {
    let (n, unit) = match secs {
        s if s >= 86_400 && s % 86_400 == 0 => (s / 86_400, "day"),
        s if s >= 3_600 && s % 3_600 == 0 => (s / 3_600, "hour"),
        s if s >= 60 && s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    #[test]
    fn the_health_rule_names_its_period_in_words() {
        let rule = DeliveryPolicy::default().health_rule();
        assert_eq!(rule.disable_after_secs, 432_000);
        assert!(
            rule.reason.contains("failed for 5 days;"),
            "{}",
            rule.reason
        );
        for (secs, words) in [
            (1, "1 second"),
            (90, "90 seconds"),
            (120, "2 minutes"),
            (7_200, "2 hours"),
            (86_400, "1 day"),
        ] {
            assert_eq!(human_period(secs), words);
        }
    }

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
