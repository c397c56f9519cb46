use std::collections::HashMap;
use std::time::Duration;

use stablepay_domain::ports::{EndpointChanges, SystemClock, WebhookEndpointRepository};
use stablepay_domain::services::{resend_event, send_test_event, ResendError, TestEventError};
use stablepay_domain::*;
use stablepay_webhook_verify::verify;

use crate::receiver::{Behavior, Receiver};
use crate::Env;

const OBJECT: &str = r#"{"id":"pay_x","object":"payment","amount":"10.50"}"#;

fn envelope_id(body: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn deliveries_are_signed_routed_and_recorded() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Ok).await;
    let (all, secret) = env
        .endpoint(Mode::Test, &format!("{}/all", rx.url), vec![])
        .await;
    let (_refunds_only, _) = env
        .endpoint(
            Mode::Test,
            &format!("{}/refunds", rx.url),
            vec![EventType::PaymentRefunded],
        )
        .await;
    let (_live, _) = env
        .endpoint(Mode::Live, &format!("{}/live", rx.url), vec![])
        .await;
    let ids = env
        .record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
        .await;
    assert_eq!(ids.len(), 1, "one record per matching endpoint");
    let _worker = env.worker(&[]);
    assert!(
        env.wait_until(Duration::from_secs(20), || async {
            env.event(Mode::Test, ids[0]).await.status == DeliveryStatus::Succeeded
        })
        .await
    );

    let got = rx.all();
    assert_eq!(got.len(), 1);
    let d = &got[0];
    assert_eq!(d.path, "/all");
    assert_eq!(d.headers["content-type"], "application/json");
    assert_eq!(d.headers["user-agent"], "Svc-Webhooks/1.0");
    let now = chrono::Utc::now().timestamp();
    verify(
        &d.headers["svc-signature"],
        d.body.as_bytes(),
        &[secret.as_str()],
        300,
        now,
    )
    .expect("signature verifies with the endpoint secret");
    assert!(verify(
        &d.headers["svc-signature"],
        d.body.as_bytes(),
        &["whsec_wrong"],
        300,
        now
    )
    .is_err());

    let record = env.event(Mode::Test, ids[0]).await;
    assert_eq!(
        record.payload, d.body,
        "the stored payload bytes are what is sent"
    );
    assert_eq!(
        envelope_id(&d.body),
        ids[0].to_string(),
        "record id == envelope id"
    );
    assert_eq!(record.endpoint, all.id);
    assert_eq!(
        (
            record.attempts,
            record.response_status,
            record.next_attempt_at
        ),
        (1, Some(200), None)
    );
    assert!(record.last_attempt_at.is_some());
    let v: serde_json::Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(
        (v["type"].as_str(), v["livemode"].as_bool()),
        (Some("payment.succeeded"), Some(false))
    );
    assert!(d
        .body
        .contains(r#""data":{"object":{"id":"pay_x","object":"payment","amount":"10.50"}}"#));
}

#[tokio::test(flavor = "multi_thread")]
async fn failures_are_retried_on_schedule_then_marked_failed() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Status(500)).await;
    env.endpoint(Mode::Test, &rx.url, vec![]).await;
    let ids = env
        .record(Mode::Test, EventType::PaymentFailed, OBJECT)
        .await;
    let _worker = env.worker(&[("STABLEPAY_WEBHOOK_MAX_ATTEMPTS", "4")]);
    assert!(
        env.wait_until(Duration::from_secs(30), || async {
            env.event(Mode::Test, ids[0]).await.status == DeliveryStatus::Failed
        })
        .await
    );
    let got = rx.all();
    assert_eq!(got.len(), 4, "exactly max_attempts tries");
    // backoff base 1 s, doubling: gaps of ≥ 1, 2 and 4 s.
    for (i, min) in [1.0, 2.0, 4.0].iter().enumerate() {
        let gap = got[i + 1].at.duration_since(got[i].at).as_secs_f64();
        assert!(
            gap >= min - 0.05,
            "gap {i} was {gap:.2}s, expected ≥ {min}s"
        );
        assert!(gap < min + 2.5, "gap {i} was {gap:.2}s");
    }
    let record = env.event(Mode::Test, ids[0]).await;
    assert_eq!(
        (
            record.attempts,
            record.response_status,
            record.next_attempt_at
        ),
        (4, Some(500), None)
    );
    assert_eq!(record.last_error.as_deref(), Some("HTTP 500: receipt"));
    // Every attempt carried the same envelope bytes.
    assert!(got.iter().all(|r| r.body == record.payload));
    // And every attempt is a row of its own, newest first.
    let attempts = stablepay_domain::ports::ResourceReader::webhook_attempts(
        &env.store,
        env.merchant,
        Mode::Test,
        ids[0],
        &PageRequest::first(10),
    )
    .await
    .unwrap()
    .unwrap()
    .data;
    assert_eq!(attempts.len(), 4);
    assert!(attempts.iter().all(|a| a.delivery == ids[0]
        && a.response_status == Some(500)
        && a.response_body.as_deref() == Some("receipt")
        && a.error.is_none()));
    assert!(attempts
        .windows(2)
        .all(|w| w[0].attempted_at > w[1].attempted_at && w[0].id > w[1].id));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_receiver_slower_than_the_deadline_is_a_timeout_and_is_retried() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Slow(Duration::from_secs(4))).await;
    env.endpoint(Mode::Test, &rx.url, vec![]).await;
    let ids = env
        .record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
        .await;
    let _worker = env.worker(&[("STABLEPAY_WEBHOOK_TIMEOUT", "1s")]);
    assert!(
        env.wait_until(Duration::from_secs(20), || async {
            env.event(Mode::Test, ids[0]).await.attempts >= 1
        })
        .await
    );
    let record = env.event(Mode::Test, ids[0]).await;
    assert_eq!(record.status, DeliveryStatus::Pending);
    assert_eq!(record.last_error.as_deref(), Some("timed out after 1 s"));
    assert!(record.next_attempt_at.is_some());
    rx.set(Behavior::Ok);
    assert!(
        env.wait_until(Duration::from_secs(20), || async {
            env.event(Mode::Test, ids[0]).await.status == DeliveryStatus::Succeeded
        })
        .await
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn test_events_and_resends_follow_the_spec_rules() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Ok).await;
    let (endpoint, secret) = env
        .endpoint(
            Mode::Live,
            &rx.url,
            vec![EventType::PaymentSucceeded, EventType::SubscriptionCreated],
        )
        .await;
    let ctx = env.ctx(Mode::Live);
    let clock = SystemClock;
    let refused = send_test_event(
        &ctx,
        endpoint.id,
        Some(EventType::PaymentRefunded),
        &env.store,
        &env.store,
        &clock,
    )
    .await;
    assert!(matches!(refused, Err(TestEventError::TypeNotEnabled(_))));
    let test = send_test_event(&ctx, endpoint.id, None, &env.store, &env.store, &clock)
        .await
        .unwrap();
    assert_eq!(
        (test.event_type, test.status, test.mode),
        (
            EventType::PaymentSucceeded,
            DeliveryStatus::Pending,
            Mode::Live
        )
    );
    let second = send_test_event(&ctx, endpoint.id, None, &env.store, &env.store, &clock)
        .await
        .unwrap();
    assert_ne!(
        envelope_id(&test.payload),
        envelope_id(&second.payload),
        "fresh envelope id per send"
    );

    // Rule 3: 409 while the original is pending.
    let pending = resend_event(&ctx, test.id, &env.store, &env.store, &env.store, &clock).await;
    assert!(matches!(pending, Err(ResendError::StillPending)));

    let worker = env.worker(&[]);
    assert!(
        env.wait_until(Duration::from_secs(20), || async { rx.all().len() == 2 })
            .await
    );
    assert!(
        env.wait_until(Duration::from_secs(10), || async {
            env.event(Mode::Live, test.id).await.status == DeliveryStatus::Succeeded
        })
        .await
    );
    let original = env.event(Mode::Live, test.id).await;
    let delivered: serde_json::Value = serde_json::from_str(&rx.all()[0].body).unwrap();
    assert_eq!(delivered["data"]["object"]["livemode"], true);
    assert!(delivered["data"]["object"]["id"]
        .as_str()
        .unwrap()
        .contains("_test_"));
    verify(
        &rx.all()[0].headers["svc-signature"],
        rx.all()[0].body.as_bytes(),
        &[secret.as_str()],
        300,
        chrono::Utc::now().timestamp(),
    )
    .unwrap();

    // Rules 1, 2, 5: a new record with a full budget, the same bytes and envelope id. No
    // worker runs while it is checked: one could deliver it before the second resend below
    // asks whether it is pending.
    drop(worker);
    let resent = resend_event(&ctx, test.id, &env.store, &env.store, &env.store, &clock)
        .await
        .unwrap();
    assert_ne!(resent.id, test.id);
    assert_eq!(
        (resent.resend_of, resent.attempts, resent.status),
        (Some(test.id), 0, DeliveryStatus::Pending)
    );
    assert_eq!(resent.payload, original.payload);
    assert!(matches!(
        resend_event(&ctx, resent.id, &env.store, &env.store, &env.store, &clock).await,
        Err(ResendError::StillPending)
    ));
    let _worker = env.worker(&[]);
    assert!(
        env.wait_until(Duration::from_secs(20), || async { rx.all().len() == 3 })
            .await
    );
    let bodies: Vec<String> = rx.all().iter().map(|r| r.body.clone()).collect();
    assert_eq!(
        bodies.iter().filter(|b| **b == original.payload).count(),
        2,
        "the redelivery is byte-identical"
    );
    assert!(
        env.wait_until(Duration::from_secs(10), || async {
            env.event(Mode::Live, resent.id).await.status == DeliveryStatus::Succeeded
        })
        .await
    );
    // Resending a resend points at the root.
    let again = resend_event(&ctx, resent.id, &env.store, &env.store, &env.store, &clock)
        .await
        .unwrap();
    assert_eq!(again.resend_of, Some(test.id));
    assert_eq!(
        env.event(Mode::Live, test.id).await,
        original,
        "the original's history is untouched"
    );

    // Rule 4: a disabled endpoint refuses resends.
    assert!(
        env.wait_until(Duration::from_secs(20), || async {
            env.event(Mode::Live, again.id).await.status == DeliveryStatus::Succeeded
        })
        .await
    );
    let changes = EndpointChanges {
        status: Some(EndpointStatus::Disabled),
        ..EndpointChanges::default()
    };
    env.store
        .update(
            env.merchant,
            Mode::Live,
            endpoint.id,
            &changes,
            &stablepay_domain::AuditEvent::of(
                &stablepay_domain::Changer::OPERATOR,
                env.merchant,
                Some(Mode::Live),
                stablepay_domain::AuditAction::WebhookEndpointUpdated,
                endpoint.id,
                stablepay_domain::Timestamp::UNIX_EPOCH,
            ),
        )
        .await
        .unwrap();
    assert!(matches!(
        resend_event(&ctx, test.id, &env.store, &env.store, &env.store, &clock).await,
        Err(ResendError::EndpointDisabled)
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn two_workers_share_the_work_without_double_sending() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Ok).await;
    env.endpoint(Mode::Test, &rx.url, vec![]).await;
    let _a = env.worker(&[("STABLEPAY_DELIVERY_BATCH", "20")]);
    let _b = env.worker(&[("STABLEPAY_DELIVERY_BATCH", "20")]);
    let mut ids = Vec::new();
    for _ in 0..300 {
        ids.extend(
            env.record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
                .await,
        );
    }
    assert!(
        env.wait_until(Duration::from_secs(60), || async {
            env.count_status(Mode::Test, DeliveryStatus::Succeeded)
                .await
                == 300
        })
        .await
    );
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in rx.all() {
        *seen.entry(envelope_id(&r.body)).or_default() += 1;
    }
    assert_eq!(seen.len(), 300);
    assert!(seen.values().all(|n| *n == 1), "no event was sent twice");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_batch_loses_nothing() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Slow(Duration::from_millis(100))).await;
    env.endpoint(Mode::Test, &rx.url, vec![]).await;
    for _ in 0..200 {
        env.record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
            .await;
    }
    let mut first = env.worker(&[
        ("STABLEPAY_DELIVERY_BATCH", "50"),
        ("STABLEPAY_DELIVERY_CONCURRENCY", "10"),
    ]);
    assert!(
        env.wait_until(Duration::from_secs(20), || async { rx.all().len() >= 30 })
            .await
    );
    // SIGKILL: no chance to record the batch in flight.
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let before = rx.all().len();
    let _second = env.worker(&[("STABLEPAY_DELIVERY_BATCH", "50")]);
    assert!(
        env.wait_until(Duration::from_secs(60), || async {
            env.count_status(Mode::Test, DeliveryStatus::Succeeded)
                .await
                == 200
        })
        .await
    );
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in rx.all() {
        *seen.entry(envelope_id(&r.body)).or_default() += 1;
    }
    assert_eq!(seen.len(), 200, "every event arrived");
    let duplicates: usize = seen.values().map(|n| n - 1).sum();
    assert!(duplicates <= 50, "duplicates ({duplicates}) are bounded by the one batch in flight; {before} arrived before the kill");
    assert!(before < 200, "the kill happened mid-run");
}

/// One endpoint's secret no longer decrypts (a damaged row, a wrong key): its deliveries
/// fail alone and visibly, and every other delivery of the same claimed batches goes out.
#[tokio::test(flavor = "multi_thread")]
async fn a_secret_that_does_not_decrypt_fails_alone_and_blocks_nothing() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Ok).await;
    let (poisoned, _) = env
        .endpoint(Mode::Test, &format!("{}/poisoned", rx.url), vec![])
        .await;
    let (healthy, _) = env
        .endpoint(Mode::Test, &format!("{}/healthy", rx.url), vec![])
        .await;
    stablepay_postgres::testing::execute_sql(
        &env.store,
        &format!(
            "UPDATE webhook_endpoints SET secret_ciphertext = '\\x00ff' WHERE id = '{}'",
            poisoned.id.uuid()
        ),
    )
    .await
    .unwrap();
    let mut ids = Vec::new();
    for _ in 0..10 {
        ids.extend(
            env.record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
                .await,
        );
    }
    assert_eq!(ids.len(), 20);
    let _worker = env.worker(&[("STABLEPAY_WEBHOOK_MAX_ATTEMPTS", "2")]);
    assert!(
        env.wait_until(Duration::from_secs(30), || async {
            env.count_status(Mode::Test, DeliveryStatus::Succeeded)
                .await
                == 10
                && env.count_status(Mode::Test, DeliveryStatus::Failed).await == 10
        })
        .await,
        "healthy deliveries succeed and poisoned ones fail"
    );
    for id in ids {
        let record = env.event(Mode::Test, id).await;
        if record.endpoint == poisoned.id {
            assert_eq!((record.attempts, record.response_status), (2, None));
            let error = record.last_error.unwrap_or_default();
            assert!(error.contains("could not be decrypted"), "{error}");
        } else {
            assert_eq!(record.endpoint, healthy.id);
            assert_eq!(record.status, DeliveryStatus::Succeeded);
        }
    }
    let received = rx.all();
    assert_eq!(received.len(), 10);
    assert!(received.iter().all(|r| r.path == "/healthy"));
}

/// SIGTERM while a delivery is in flight: the worker waits for the answer, records it,
/// then exits 0 (a deploy never turns a delivered event into a duplicate or a loss).
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_records_the_delivery_in_flight_then_exits_cleanly() {
    let env = Env::new().await;
    let rx = Receiver::start(Behavior::Slow(Duration::from_millis(1500))).await;
    env.endpoint(Mode::Test, &rx.url, vec![]).await;
    let ids = env
        .record(Mode::Test, EventType::PaymentSucceeded, OBJECT)
        .await;
    let mut worker = env.worker(&[("STABLEPAY_WEBHOOK_TIMEOUT", "5s")]);
    assert!(
        env.wait_until(Duration::from_secs(10), || async { !rx.all().is_empty() })
            .await,
        "the delivery reached the receiver"
    );
    let signalled = std::process::Command::new("kill")
        .args(["-TERM", &worker.0.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let sent_at = std::time::Instant::now();
    let exited = tokio::task::spawn_blocking(move || {
        let status = worker.0.wait();
        (status, worker)
    })
    .await
    .unwrap();
    let status = exited.0.unwrap();
    assert!(status.success(), "worker exit: {status:?}");
    // It waited for the receiver's answer (1.5 s after arrival) rather than dropping it.
    assert!(sent_at.elapsed() >= Duration::from_millis(500));
    let record = env.event(Mode::Test, ids[0]).await;
    assert_eq!(
        (record.status, record.attempts, record.response_status),
        (DeliveryStatus::Succeeded, 1, Some(200))
    );
    assert_eq!(rx.all().len(), 1);
}
