use chrono::{TimeZone, Utc};

use super::*;

fn at(secs: i64) -> Timestamp {
    Timestamp::new(Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap())
}

fn active() -> BillingState {
    BillingState {
        status: SubscriptionStatus::Active,
        retry_count: 0,
        next_retry_at: None,
        last_failure_code: None,
        next_payment_at: Some(at(0)),
        canceled_at: None,
    }
}

const DAY: i64 = 86_400;

#[test]
fn durations_and_policies_parse() {
    use std::time::Duration;
    assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86_400)));
    assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("1500ms"), Some(Duration::from_millis(1500)));
    assert_eq!(parse_duration("2 weeks"), None);
    assert_eq!(parse_duration("5x"), None);
    assert_eq!(
        DunningPolicy::default().delays_secs(),
        [DAY as u64, 3 * DAY as u64, 5 * DAY as u64]
    );
    assert_eq!(
        DunningPolicy::parse("5s, 5s,10s").unwrap().delays_secs(),
        [5, 5, 10]
    );
    assert!(DunningPolicy::parse("1d,,3d").is_err());
    assert!(DunningPolicy::parse("0s").is_err());
    assert!(DunningPolicy::parse("1000000000000d").is_err());
    assert!(DunningPolicy::parse("366d").is_err());
    assert!(DunningPolicy::parse("soon").unwrap_err().contains("soon"));
}

#[test]
fn a_failed_charge_makes_an_active_subscription_past_due_with_the_first_delay() {
    let t = active().charge_failed(
        FailureCode::InsufficientAllowance,
        at(10),
        &DunningPolicy::default(),
    );
    assert_eq!(t.state.status, SubscriptionStatus::PastDue);
    assert_eq!(t.state.retry_count, 0);
    assert_eq!(t.state.next_retry_at, Some(at(10 + DAY)));
    assert_eq!(
        t.state.last_failure_code,
        Some(FailureCode::InsufficientAllowance)
    );
    assert_eq!(t.state.next_payment_at, Some(at(0)), "the period stays due");
    assert_eq!(
        t.events,
        [EventType::PaymentFailed, EventType::SubscriptionPastDue]
    );
}

#[test]
fn retries_follow_the_schedule_then_the_last_failure_expires() {
    let policy = DunningPolicy::default();
    let mut state = active();
    let mut now = at(0);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let t = state.charge_failed(FailureCode::InsufficientBalance, now, &policy);
        seen.push((t.state.status, t.state.retry_count, t.events.clone()));
        if let Some(next) = t.state.next_retry_at {
            assert!(next > now);
            now = next;
        }
        state = t.state;
    }
    use EventType::*;
    use SubscriptionStatus::*;
    assert_eq!(
        seen,
        [
            (PastDue, 0, vec![PaymentFailed, SubscriptionPastDue]),
            (PastDue, 1, vec![PaymentFailed]),
            (PastDue, 2, vec![PaymentFailed]),
            (Expired, 3, vec![PaymentFailed, SubscriptionExpired]),
        ]
    );
    // 1 d, then 3 d, then 5 d after each failure.
    assert_eq!(now, at(DAY + 3 * DAY + 5 * DAY));
    assert_eq!(state.next_payment_at, None);
    // An expired subscription never changes again.
    let after = state.charge_failed(FailureCode::InsufficientBalance, now, &policy);
    assert_eq!((after.state, after.events), (state.clone(), vec![]));
    assert_eq!(state.charge_succeeded(at(9 * DAY)).events, []);
}

#[test]
fn a_retry_that_succeeds_recovers_to_active_with_retries_reset() {
    let policy = DunningPolicy::default();
    let past_due = active()
        .charge_failed(FailureCode::InsufficientAllowance, at(0), &policy)
        .state
        .charge_failed(FailureCode::InsufficientAllowance, at(DAY), &policy)
        .state;
    assert_eq!(past_due.retry_count, 1);
    let t = past_due.charge_succeeded(at(30 * DAY));
    assert_eq!(t.state.status, SubscriptionStatus::Active);
    assert_eq!(
        (
            t.state.retry_count,
            t.state.next_retry_at,
            t.state.last_failure_code
        ),
        (0, None, None)
    );
    assert_eq!(t.state.next_payment_at, Some(at(30 * DAY)));
    assert_eq!(t.events, [EventType::PaymentSucceeded]);
}

#[test]
fn chain_unavailable_is_recorded_but_is_no_retry() {
    let policy = DunningPolicy::default();
    let t = active().charge_failed(FailureCode::ChainUnavailable, at(5), &policy);
    assert_eq!(t.state.status, SubscriptionStatus::Active);
    assert_eq!(t.state.next_retry_at, None);
    assert_eq!(
        t.state.last_failure_code,
        Some(FailureCode::ChainUnavailable)
    );
    assert!(t.events.is_empty());
    let past_due = active()
        .charge_failed(FailureCode::InsufficientBalance, at(0), &policy)
        .state;
    let t = past_due.charge_failed(FailureCode::ChainUnavailable, at(DAY), &policy);
    assert_eq!(
        (t.state.status, t.state.retry_count),
        (SubscriptionStatus::PastDue, 0)
    );
}

#[test]
fn an_inactive_subscription_on_chain_is_canceled_once() {
    let t = active().charge_failed(
        FailureCode::SubscriptionInactive,
        at(7),
        &DunningPolicy::default(),
    );
    assert_eq!(t.state.status, SubscriptionStatus::Canceled);
    assert_eq!(t.state.canceled_at, Some(at(7)));
    assert_eq!(t.events, [EventType::SubscriptionCanceled]);
    let again = t.state.canceled(at(8));
    assert!(again.events.is_empty(), "canceled fires once");
    assert_eq!(again.state.canceled_at, Some(at(7)));
}

#[test]
fn no_retries_configured_expires_on_the_first_failure() {
    let policy = DunningPolicy {
        delays_secs: vec![],
    };
    let t = active().charge_failed(FailureCode::InsufficientBalance, at(0), &policy);
    assert_eq!(t.state.status, SubscriptionStatus::Expired);
    assert_eq!(
        t.events,
        [EventType::PaymentFailed, EventType::SubscriptionExpired]
    );
}

#[test]
fn a_revoked_recipient_pauses_and_a_verified_one_resumes() {
    let policy = DunningPolicy::default();
    let past_due = active()
        .charge_failed(FailureCode::InsufficientBalance, at(0), &policy)
        .state;
    let paused = past_due.paused();
    assert_eq!(paused.state.status, SubscriptionStatus::Paused);
    assert_eq!(paused.state.next_retry_at, None, "no charge while paused");
    assert!(paused.events.is_empty());
    // While paused nothing charges or fails it.
    let p = &paused.state;
    assert_eq!(
        p.charge_failed(FailureCode::InsufficientBalance, at(DAY), &policy)
            .state,
        *p
    );
    assert_eq!(p.charge_succeeded(at(DAY)).state, *p);
    let resumed = p.resumed();
    assert_eq!(resumed.state.status, SubscriptionStatus::Active);
    assert_eq!(
        (resumed.state.retry_count, resumed.state.last_failure_code),
        (0, None)
    );
    // Canceled and expired subscriptions neither pause nor resume.
    let canceled = active().canceled(at(1)).state;
    assert_eq!(canceled.paused().state, canceled);
    assert_eq!(canceled.resumed().state, canceled);
}

#[test]
fn failure_codes_have_their_wire_names() {
    assert_eq!(
        FailureCode::InsufficientAllowance.as_str(),
        "insufficient_allowance"
    );
    assert_eq!(
        FailureCode::InsufficientBalance.as_str(),
        "insufficient_balance"
    );
    assert_eq!(
        FailureCode::SubscriptionInactive.as_str(),
        "subscription_inactive"
    );
    assert_eq!(FailureCode::ChainUnavailable.as_str(), "chain_unavailable");
    assert!(!FailureCode::ChainUnavailable.reason().is_empty());
}
