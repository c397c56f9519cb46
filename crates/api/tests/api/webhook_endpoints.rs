use serde_json::{json, Value};

use crate::support::*;

#[tokio::test]
async fn create_shows_the_secret_once_and_manages_the_endpoint() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let res = app
        .client
        .post(app.url("/webhook_endpoints"))
        .bearer_auth(key)
        .header("Idempotency-Key", "ep-1")
        .json(&json!({ "url": "https://merchant.example/hooks", "enabled_events": ["payment.succeeded", "payment.refunded"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let e: Value = res.json().await.unwrap();
    let id = e["id"].as_str().unwrap();
    assert!(id.starts_with("we_"));
    assert_eq!(e["object"], "webhook_endpoint");
    assert_eq!(e["livemode"], false);
    assert_eq!(e["status"], "enabled");
    assert!(e["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_eq!(
        e["enabled_events"],
        json!(["payment.succeeded", "payment.refunded"])
    );

    // An idempotent replay returns the endpoint without the secret.
    let replay = app
        .client
        .post(app.url("/webhook_endpoints"))
        .bearer_auth(key)
        .header("Idempotency-Key", "ep-1")
        .json(&json!({ "url": "https://merchant.example/hooks", "enabled_events": ["payment.succeeded", "payment.refunded"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        replay.headers().get("idempotency-replayed").unwrap(),
        "true"
    );
    let replay: Value = replay.json().await.unwrap();
    assert_eq!(replay["id"], id);
    assert!(replay.get("secret").is_none());

    let got: Value = app
        .get(key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert!(got.get("secret").is_none());
    let list: Value = app
        .get(key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert!(list["data"][0].get("secret").is_none());
    // Mode-scoped.
    let live: Value = app
        .get(&app.a.live_key, "/webhook_endpoints")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(live["data"], json!([]));

    let updated: Value = app
        .post(key, &format!("/webhook_endpoints/{id}"), json!({ "status": "disabled", "enabled_events": [], "url": "http://localhost:4242/hooks" }))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (updated["status"].as_str(), updated["url"].as_str()),
        (Some("disabled"), Some("http://localhost:4242/hooks"))
    );
    assert_eq!(updated["enabled_events"], json!([]));

    let rotated: Value = app
        .post(
            key,
            &format!("/webhook_endpoints/{id}/rotate_secret"),
            json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(rotated["secret"].as_str().unwrap().starts_with("whsec_"));
    assert_ne!(rotated["secret"], e["secret"]);

    let deleted: Value = app
        .delete(key, &format!("/webhook_endpoints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        deleted,
        json!({ "id": id, "object": "webhook_endpoint", "deleted": true })
    );
    assert_error(
        app.get(key, &format!("/webhook_endpoints/{id}")).await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.delete(key, &format!("/webhook_endpoints/{id}")).await,
        404,
        "not_found_error",
    )
    .await;
}

#[tokio::test]
async fn url_and_event_rules() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    for (body, field) in [
        (json!({}), "url"),
        (json!({ "url": "http://merchant.example/hooks" }), "url"),
        (json!({ "url": "not a url" }), "url"),
        (
            json!({ "url": format!("https://merchant.example/{}", "a".repeat(2000)) }),
            "url",
        ),
        (
            json!({ "url": "https://merchant.example", "enabled_events": ["payment.created"] }),
            "enabled_events[0]",
        ),
        (
            json!({ "url": "https://merchant.example", "enabled_events": "payment.succeeded" }),
            "enabled_events",
        ),
    ] {
        let err = assert_error(
            app.post(key, "/webhook_endpoints", body.clone()).await,
            400,
            "invalid_request_error",
        )
        .await;
        assert_eq!(detail_fields(&err), [field], "{body}");
    }
    let all: Value = app
        .post(
            key,
            "/webhook_endpoints",
            json!({ "url": "http://localhost:9999/x" }),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(all["enabled_events"], json!([]));
    let id = all["id"].as_str().unwrap();
    let err = assert_error(
        app.post(
            key,
            &format!("/webhook_endpoints/{id}"),
            json!({ "status": "paused" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["status"]);
    assert_error(
        app.post(
            &app.b.test_key,
            &format!("/webhook_endpoints/{id}"),
            json!({ "status": "disabled" }),
        )
        .await,
        404,
        "not_found_error",
    )
    .await;
}
