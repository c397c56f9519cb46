use chrono::{TimeZone, Utc};

use super::*;
use crate::model::{EventId, WebhookAttempt, WebhookAttemptId};

const DAY: i64 = 86_400;

fn at(secs: i64) -> Timestamp {
    Timestamp::new(Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap())
}

fn rule() -> HealthRule {
    HealthRule {
        disable_after_secs: 5 * DAY,
        reason: "disabled".into(),
    }
}

fn outcome(
    endpoint: WebhookEndpointId,
    status: DeliveryStatus,
    sent: bool,
    started: i64,
) -> DeliveryOutcome {
    let id = EventId::generate();
    DeliveryOutcome {
        id,
        endpoint,
        status,
        attempts: 1,
        attempted_at: at(started + 2),
        next_attempt_at: None,
        response_status: None,
        last_error: None,
        sent,
        attempt: WebhookAttempt {
            id: WebhookAttemptId::generate(),
            delivery: id,
            attempted_at: at(started),
            duration_ms: 2000,
            response_status: None,
            error: None,
            response_body: None,
        },
    }
}

#[test]
fn a_batch_says_healthy_on_any_success_failed_when_all_sent_failed_and_nothing_otherwise() {
    let (ok, bad, unsent) = (
        WebhookEndpointId::generate(),
        WebhookEndpointId::generate(),
        WebhookEndpointId::generate(),
    );
    let batch = [
        outcome(ok, DeliveryStatus::Pending, true, 0),
        outcome(ok, DeliveryStatus::Succeeded, true, 5),
        outcome(bad, DeliveryStatus::Pending, true, 10),
        outcome(bad, DeliveryStatus::Failed, true, 3),
        outcome(unsent, DeliveryStatus::Pending, true, 0),
        outcome(unsent, DeliveryStatus::Pending, false, 1),
    ];
    let health = batch_health(&batch);
    assert_eq!(health[&ok], BatchHealth::Succeeded);
    assert_eq!(
        health[&bad],
        BatchHealth::Failed {
            first_started: at(3),
            last_attempted: at(12)
        }
    );
    assert_eq!(health[&unsent], BatchHealth::Unknown);
}

#[test]
fn a_first_failure_starts_the_streak_and_later_ones_are_recorded_once_a_minute() {
    let fresh = after_failed_batch(FailureRecord::default(), at(0), at(2), &rule());
    assert_eq!(
        fresh,
        FailureUpdate::Failing {
            since: at(0),
            last: at(2)
        }
    );
    let stored = FailureRecord {
        failing_since: Some(at(0)),
        last_failed_at: Some(at(2)),
    };
    // Within the minute: nothing to write.
    assert_eq!(
        after_failed_batch(stored, at(30), at(61), &rule()),
        FailureUpdate::Unchanged
    );
    // After it: the streak goes on from its start.
    assert_eq!(
        after_failed_batch(stored, at(90), at(92), &rule()),
        FailureUpdate::Failing {
            since: at(0),
            last: at(92)
        }
    );
}

#[test]
fn a_streak_as_long_as_the_period_disables_even_within_the_minute() {
    let stored = FailureRecord {
        failing_since: Some(at(0)),
        last_failed_at: Some(at(5 * DAY - 10)),
    };
    assert_eq!(
        after_failed_batch(stored, at(5 * DAY - 5), at(5 * DAY - 1), &rule()),
        FailureUpdate::Unchanged,
        "one second short of the period"
    );
    assert_eq!(
        after_failed_batch(stored, at(5 * DAY - 5), at(5 * DAY), &rule()),
        FailureUpdate::Disabled {
            since: at(0),
            last: at(5 * DAY)
        }
    );
}

#[test]
fn an_idle_gap_longer_than_the_period_restarts_the_streak() {
    // Failing since day 0, last failure on day 1, then silence until day 7.
    let stored = FailureRecord {
        failing_since: Some(at(0)),
        last_failed_at: Some(at(DAY)),
    };
    assert_eq!(
        after_failed_batch(stored, at(7 * DAY), at(7 * DAY + 2), &rule()),
        FailureUpdate::Failing {
            since: at(7 * DAY),
            last: at(7 * DAY + 2)
        }
    );
    // A gap within the period (plus the minute records lag) keeps it: disabled.
    let recent = FailureRecord {
        failing_since: Some(at(0)),
        last_failed_at: Some(at(DAY)),
    };
    assert_eq!(
        after_failed_batch(recent, at(6 * DAY + 60), at(6 * DAY + 62), &rule()),
        FailureUpdate::Disabled {
            since: at(0),
            last: at(6 * DAY + 62)
        }
    );
}
