use serde_json::{json, Value};

use crate::support::*;

async fn create(app: &TestApp, key: &str, idem: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/checkout/sessions"))
        .bearer_auth(key)
        .header("Idempotency-Key", idem)
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn replays_the_original_and_rejects_a_different_body() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    // Verified with the live key, so both modes default to it (D25).
    app.verified_wallet(&app.a.live_key, &WALLET_KEY).await;
    let body = json!({ "mode": "payment", "title": "T", "amount": "5" });
    let first = create(&app, key, "order-1", &body).await;
    assert_eq!(first.status(), 201);
    assert!(first.headers().get("idempotency-replayed").is_none());
    let first = first.text().await.unwrap();
    let again = create(&app, key, "order-1", &body).await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers().get("idempotency-replayed").unwrap(), "true");
    assert_eq!(again.text().await.unwrap(), first);

    let other = json!({ "mode": "payment", "title": "T", "amount": "6" });
    let reused = create(&app, key, "order-1", &other).await;
    assert!(
        reused.headers().get("retry-after").is_none(),
        "final: no Retry-After"
    );
    assert_error(reused, 409, "idempotency_error").await;
    // Scope is merchant + mode: the same key in live mode is a new request.
    let live = create(&app, &app.a.live_key, "order-1", &body).await;
    assert_eq!(live.status(), 201);
    assert!(live.headers().get("idempotency-replayed").is_none());
    let live: Value = live.json().await.unwrap();
    assert_eq!(live["livemode"], true);
}

#[tokio::test]
async fn failed_requests_release_the_key_and_bad_keys_are_rejected() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let body = json!({ "mode": "payment", "title": "T", "amount": "5" });
    // No wallet yet: 400, and the key is released.
    assert_error(
        create(&app, key, "retry-me", &body).await,
        400,
        "invalid_request_error",
    )
    .await;
    app.verified_wallet(key, &WALLET_KEY).await;
    let res = create(&app, key, "retry-me", &body).await;
    assert_eq!(res.status(), 201);
    assert!(res.headers().get("idempotency-replayed").is_none());

    let err = assert_error(
        create(&app, key, &"k".repeat(201), &body).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["Idempotency-Key"]);
    assert_eq!(
        create(&app, key, &"k".repeat(200), &body).await.status(),
        201
    );
}

#[tokio::test]
async fn twenty_concurrent_identical_creates_make_one_session() {
    let app = spawn_app().await;
    let key = app.a.test_key.clone();
    app.verified_wallet(&key, &WALLET_KEY).await;
    let body = json!({ "mode": "payment", "title": "Concurrent", "amount": "5" });
    let results =
        futures_util::future::join_all((0..20).map(|_| create(&app, &key, "same-key", &body)))
            .await;
    let mut ids = std::collections::HashSet::new();
    for res in results {
        match res.status().as_u16() {
            201 => {
                let s: Value = res.json().await.unwrap();
                ids.insert(s["id"].as_str().unwrap().to_owned());
            }
            409 => {
                // In flight: the one 409 a client may retry as is, so it says when.
                assert_eq!(res.headers().get("retry-after").unwrap(), "1");
                assert_error(res, 409, "conflict_error").await;
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(ids.len(), 1, "all successes return the same session");
    let list: Value = app
        .get(&key, "/checkout/sessions")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        list["data"].as_array().unwrap().len(),
        1,
        "exactly one session exists"
    );
}

/// A create commits with its `Idempotency-Key`'s stored answer or not at all (D28): when
/// the answer cannot be stored (here a trigger refuses it, as a crash before the commit
/// would lose it), the endpoint or wallet is not created either, so the client's retry
/// can never make a second one.
#[tokio::test]
async fn a_create_whose_answer_cannot_be_stored_creates_nothing() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let sql = |s: &'static str| {
        let store = app.store.clone();
        async move {
            stablepay_postgres::testing::execute_sql(&store, s)
                .await
                .unwrap()
        }
    };
    sql(
        "CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN RAISE EXCEPTION 'answer refused'; END $$",
    )
    .await;
    sql(
        "CREATE TRIGGER refuse_answers BEFORE INSERT OR UPDATE ON idempotency_keys \
         FOR EACH ROW WHEN (NEW.response_body IS NOT NULL) EXECUTE FUNCTION refuse_answers()",
    )
    .await;
    let post = |path: &'static str, idem: &'static str, body: Value| {
        app.client
            .post(app.url(path))
            .bearer_auth(key)
            .header("Idempotency-Key", idem)
            .json(&body)
            .send()
    };
    let endpoint = json!({
        "url": "https://merchant.example/hooks",
        "enabled_events": ["checkout.session.completed"],
    });
    let wallet = json!({ "address": "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720" });
    for (path, idem, body) in [
        ("/webhook_endpoints", "ep-crash", endpoint.clone()),
        ("/wallets", "wallet-crash", wallet.clone()),
    ] {
        let res = post(path, idem, body).await.unwrap();
        assert!(res.status().is_server_error(), "{path}: {}", res.status());
        let list: Value = app.get(key, path).await.json().await.unwrap();
        assert_eq!(
            list["data"].as_array().unwrap().len(),
            0,
            "{path}: rolled back"
        );
    }
    // Once answers can be stored again, the retry creates exactly one of each.
    sql("DROP TRIGGER refuse_answers ON idempotency_keys").await;
    for (path, idem, body) in [
        ("/webhook_endpoints", "ep-crash", endpoint),
        ("/wallets", "wallet-crash", wallet),
    ] {
        for _ in 0..2 {
            let res = post(path, idem, body.clone()).await.unwrap();
            assert_eq!(res.status(), 201, "{path}");
        }
        let list: Value = app.get(key, path).await.json().await.unwrap();
        assert_eq!(list["data"].as_array().unwrap().len(), 1, "{path}");
    }
}
