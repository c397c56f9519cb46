//! When a failing webhook endpoint is disabled (D12): an endpoint whose sent attempts
//! have all failed for the rule's period is disabled; any success makes it healthy.
//! The store only keeps what these functions decide.

use std::collections::BTreeMap;

use crate::model::{DeliveryStatus, Timestamp, WebhookEndpointId};
use crate::ports::{DeliveryOutcome, HealthRule};

/// What one batch of recorded attempts says about one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchHealth {
    /// A delivery to it succeeded: it is healthy.
    Succeeded,
    /// Every attempt reached it and none succeeded: when the first started and the last
    /// ended.
    Failed {
        first_started: Timestamp,
        last_attempted: Timestamp,
    },
    /// An attempt never reached it (an unreadable secret, say) and none succeeded: the
    /// batch says nothing about the receiver.
    Unknown,
}

/// Each endpoint of the batch and what the batch says about it.
pub fn batch_health(outcomes: &[DeliveryOutcome]) -> BTreeMap<WebhookEndpointId, BatchHealth> {
    let mut health = BTreeMap::new();
    for o in outcomes {
        let this = if o.status == DeliveryStatus::Succeeded {
            BatchHealth::Succeeded
        } else if o.sent {
            BatchHealth::Failed {
                first_started: o.attempt.attempted_at,
                last_attempted: o.attempted_at,
            }
        } else {
            BatchHealth::Unknown
        };
        let merged = match (health.get(&o.endpoint).copied(), this) {
            (None, this) => this,
            (Some(BatchHealth::Succeeded), _) | (_, BatchHealth::Succeeded) => {
                BatchHealth::Succeeded
            }
            (Some(BatchHealth::Unknown), _) | (_, BatchHealth::Unknown) => BatchHealth::Unknown,
            (
                Some(BatchHealth::Failed {
                    first_started: a,
                    last_attempted: b,
                }),
                BatchHealth::Failed {
                    first_started: c,
                    last_attempted: d,
                },
            ) => BatchHealth::Failed {
                first_started: a.min(c),
                last_attempted: b.max(d),
            },
        };
        health.insert(o.endpoint, merged);
    }
    health
}

/// An enabled endpoint's failure record as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FailureRecord {
    /// When its current streak of failures began (`None`: healthy).
    pub failing_since: Option<Timestamp>,
    /// Its last recorded failure (written at most once a minute).
    pub last_failed_at: Option<Timestamp>,
}

/// What to store after a batch whose attempts at an enabled endpoint all failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureUpdate {
    /// Nothing: the record was written less than a minute ago and nothing is disabled.
    Unchanged,
    /// The streak goes on (or starts).
    Failing { since: Timestamp, last: Timestamp },
    /// The streak reached the rule's period: disabled, with the rule's reason.
    Disabled { since: Timestamp, last: Timestamp },
}

/// How often a failing endpoint's record is written while the streak goes on.
const RECORD_EVERY_SECS: i64 = 60;
/// The longest period the rule applies (a hundred years: "never", in practice).
const MAX_PERIOD_SECS: i64 = 100 * 366 * 86_400;

/// The streak goes on from the stored one unless the last stored failure is older than
/// the period (plus the minute records may lag): an idle gap restarts it, so one failure
/// after days of silence disables nothing.
pub fn after_failed_batch(
    stored: FailureRecord,
    first_started: Timestamp,
    last_attempted: Timestamp,
    rule: &HealthRule,
) -> FailureUpdate {
    // Bounded so that date arithmetic never overflows, whatever the configuration says.
    let period = rule.disable_after_secs.clamp(0, MAX_PERIOD_SECS);
    let since = match (stored.failing_since, stored.last_failed_at) {
        (Some(since), Some(last))
            if last >= first_started.plus_seconds(-(period + RECORD_EVERY_SECS)) =>
        {
            since
        }
        _ => first_started,
    };
    let last = last_attempted;
    if since <= last.plus_seconds(-period) {
        return FailureUpdate::Disabled { since, last };
    }
    let recorded_lately = stored.failing_since.is_some()
        && stored
            .last_failed_at
            .is_some_and(|at| at >= last.plus_seconds(-RECORD_EVERY_SECS));
    if recorded_lately {
        FailureUpdate::Unchanged
    } else {
        FailureUpdate::Failing { since, last }
    }
}

#[cfg(test)]
mod tests;
