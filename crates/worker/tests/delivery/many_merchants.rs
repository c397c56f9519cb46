//! Many endpoints on one worker: a slow endpoint holds at most its share of the slots, and
//! an endpoint whose attempts all fail for the configured period is disabled, saying why.

use std::time::Duration;

use stablepay_domain::ports::{EndpointChanges, WebhookEndpointRepository};
use stablepay_domain::services::update_webhook_endpoint;
use stablepay_domain::*;
use stablepay_postgres::testing::execute_sql;

use crate::receiver::{Behavior, Receiver};
use crate::Env;

const OBJECT: &str = r#"{"id":"pay_x","object":"payment","amount":"10.50"}"#;

/// Rows `sql` returns (diesel's `execute` reports a SELECT's row count).
async fn rows(env: &Env, sql: &str) -> usize {
    execute_sql(&env.store, sql).await.unwrap()
}

async fn get(env: &Env, id: WebhookEndpointId) -> WebhookEndpoint {
    WebhookEndpointRepository::get(&env.store, env.merchant, Mode::Test, id)
        .await
        .unwrap()
        .unwrap()
}

/// A backlog of 300 deliveries for an endpoint that never answers in time sits ahead of
/// everything else; another merchant-mode's fresh events still go out at once, before the
/// slow endpoint's first attempt has even timed out, and the slow endpoint never has more
/// than its cap of requests open.
#[tokio::test(flavor = "multi_thread")]
async fn a_slow_endpoints_backlog_does_not_hold_up_other_endpoints() {
    let env = Env::new().await;
    let slow = Receiver::start(Behavior::Slow(Duration::from_secs(30))).await;
    let healthy = Receiver::start(Behavior::Ok).await;
    let (slow_endpoint, _) = env.endpoint(Mode::Test, &slow.url, vec![]).await;
    for _ in 0..300 {
        env.record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
            .await;
    }
    env.endpoint(Mode::Live, &healthy.url, vec![]).await;
    // 16 slots, at most 4 per endpoint; attempts time out after 2 s.
    let _worker = env.worker(&[
        ("STABLEPAY_DELIVERY_LANES", "2"),
        ("STABLEPAY_DELIVERY_CONCURRENCY", "8"),
        ("STABLEPAY_DELIVERY_PER_ENDPOINT", "4"),
    ]);
    assert!(
        env.wait_until(Duration::from_secs(10), || async { slow.all().len() == 4 })
            .await,
        "the slow endpoint gets its 4 slots"
    );
    for _ in 0..20 {
        env.record(Mode::Live, EventType::PaymentSucceeded, OBJECT)
            .await;
    }
    assert!(
        env.wait_until(Duration::from_secs(10), || async {
            healthy.all().len() == 20
        })
        .await,
        "every healthy delivery arrives"
    );
    let slow_attempts = rows(
        &env,
        &format!(
            "SELECT 1 FROM webhook_attempts a JOIN webhook_events w ON w.id = a.delivery_id \
             WHERE w.endpoint_id = '{}'",
            slow_endpoint.id.uuid()
        ),
    )
    .await;
    assert_eq!(
        (slow_attempts, slow.all().len()),
        (0, 4),
        "the healthy deliveries went out while the slow endpoint's first 4 were still open"
    );
}

/// Every attempt to one endpoint fails for longer than `STABLEPAY_WEBHOOK_DISABLE_AFTER`:
/// the worker disables it and its record says why. An endpoint that failed once and then
/// answered is healthy again; an unrelated healthy endpoint is untouched; the merchant
/// re-enabling the endpoint clears the verdict.
#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_failing_everything_for_the_period_is_disabled_with_its_reason() {
    let env = Env::new().await;
    let failing = Receiver::start(Behavior::Status(500)).await;
    let flaky = Receiver::start(Behavior::Status(503)).await;
    let fine = Receiver::start(Behavior::Ok).await;
    let (failing_endpoint, _) = env.endpoint(Mode::Test, &failing.url, vec![]).await;
    let (flaky_endpoint, _) = env.endpoint(Mode::Test, &flaky.url, vec![]).await;
    let (fine_endpoint, _) = env.endpoint(Mode::Test, &fine.url, vec![]).await;
    let _worker = env.worker(&[
        ("STABLEPAY_WEBHOOK_DISABLE_AFTER", "2s"),
        ("STABLEPAY_WEBHOOK_MAX_ATTEMPTS", "10"),
    ]);
    env.record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
        .await;
    assert!(
        env.wait_until(Duration::from_secs(10), || async {
            !flaky.all().is_empty()
        })
        .await
    );
    flaky.set(Behavior::Ok);
    assert!(
        env.wait_until(Duration::from_secs(20), || async {
            get(&env, failing_endpoint.id).await.status == EndpointStatus::Disabled
        })
        .await,
        "the failing endpoint is disabled"
    );
    let disabled = get(&env, failing_endpoint.id).await;
    let reason = disabled.disabled_reason.unwrap_or_default();
    assert!(
        reason.contains("every delivery attempt failed for 2 seconds"),
        "{reason}"
    );
    assert!(failing.all().len() >= 2, "it was tried more than once");
    for id in [flaky_endpoint.id, fine_endpoint.id] {
        let endpoint = get(&env, id).await;
        assert_eq!(
            (endpoint.status, endpoint.disabled_reason),
            (EndpointStatus::Enabled, None)
        );
    }
    let healthy_again = rows(
        &env,
        &format!(
            "SELECT 1 FROM webhook_endpoints WHERE id = '{}' AND failing_since IS NULL",
            flaky_endpoint.id.uuid()
        ),
    )
    .await;
    assert_eq!(healthy_again, 1, "one success ends a failing streak");
    // Disabled: new events are no longer routed to it, and nothing more is sent to it.
    let sent_before = failing.all().len();
    let ids = env
        .record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
        .await;
    assert_eq!(ids.len(), 2, "routed to the two enabled endpoints only");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(failing.all().len(), sent_before);
    // The merchant turns it back on: the verdict is cleared.
    let enabled = update_webhook_endpoint(
        &env.ctx(Mode::Test),
        failing_endpoint.id,
        EndpointChanges {
            status: Some(EndpointStatus::Enabled),
            ..EndpointChanges::default()
        },
        &stablepay_domain::Changer::OPERATOR,
        &env.store,
        &stablepay_domain::ports::SystemClock,
    )
    .await
    .unwrap();
    assert_eq!(
        (enabled.status, enabled.disabled_reason),
        (EndpointStatus::Enabled, None)
    );
}
