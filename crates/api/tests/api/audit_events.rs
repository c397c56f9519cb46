//! The audit log (D32) over real HTTP: each audited change made through the API and the
//! dashboard is listed with its actor, address and before/after; nothing edits it; and the
//! merchant's default underpayment tolerance set in the dashboard reaches new sessions.

use serde_json::{json, Value};
use stablepay_domain::ports::ApiKeyManager;

use crate::dashboard::{hidden, signed_in};
use crate::support::*;

async fn audit_events(app: &TestApp, key: &str) -> Vec<Value> {
    let res = app.get(key, "/audit_events?limit=100").await;
    assert_eq!(res.status(), 200);
    let list: Value = res.json().await.unwrap();
    assert_eq!(list["object"], "list");
    list["data"].as_array().unwrap().clone()
}

fn actions(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect()
}

fn entry<'a>(entries: &'a [Value], action: &str) -> &'a Value {
    entries
        .iter()
        .find(|e| e["action"] == action)
        .unwrap_or_else(|| panic!("no {action} in {:?}", actions(entries)))
}

#[tokio::test]
async fn each_change_through_the_api_and_the_dashboard_is_listed_and_none_is_editable() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    // The dashboard user: invited by the operator, then its setup link used (from here).
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;

    // Through the API, by the test key.
    let wallet = app.registered_wallet(key, &WALLET_KEY).await;
    let wallet_id = wallet["id"].as_str().unwrap().to_owned();
    app.verified_wallet(key, &WALLET_KEY).await;
    let (endpoint, endpoint_id) = app.webhook_endpoint(key).await;
    let res = app
        .post(
            key,
            &format!("/webhook_endpoints/{endpoint_id}"),
            json!({ "url": "https://m.example/other", "description": "ops" }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let res = app
        .post(
            key,
            &format!("/webhook_endpoints/{endpoint_id}/rotate_secret"),
            json!({}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let rotated: Value = res.json().await.unwrap();
    let res = app
        .delete(key, &format!("/webhook_endpoints/{endpoint_id}"))
        .await;
    assert_eq!(res.status(), 200);
    let res = app.delete(key, &format!("/wallets/{wallet_id}")).await;
    assert_eq!(res.status(), 200);

    // Through the dashboard, by the user.
    let csrf = b.csrf("/dashboard/test/developers/api_keys").await;
    let res = b
        .post("/dashboard/test/developers/api_keys", &[("csrf", &csrf)])
        .await;
    assert_eq!(res.status(), 200);
    let new_key = hidden_key_id(&b.text("/dashboard/test/developers/api_keys").await);
    let res = b
        .post(
            &format!("/dashboard/test/developers/api_keys/{new_key}/revoke"),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(res.status(), 303);
    let res = b
        .post(
            "/dashboard/test/settings",
            &[("csrf", &csrf), ("underpayment_tolerance_bps", "50")],
        )
        .await;
    assert_eq!(res.status(), 303);

    let entries = audit_events(&app, key).await;
    assert_eq!(
        actions(&entries),
        [
            "settings.underpayment_tolerance_updated",
            "api_key.revoked",
            "api_key.created",
            "wallet.revoked",
            "webhook_endpoint.deleted",
            "webhook_endpoint.secret_rotated",
            "webhook_endpoint.updated",
            "webhook_endpoint.created",
            "wallet.verified",
            // `verified_wallet` registers again: a fresh challenge for the pending wallet.
            "wallet.registered",
            "wallet.registered",
            "user.password_set",
            "user.invited",
            // The key `spawn_app` made through the operator's use case.
            "api_key.created",
        ],
        "newest first"
    );
    for e in &entries {
        assert!(e["id"].as_str().unwrap().starts_with("aud_"), "{e}");
        assert_eq!(e["object"], "audit_event");
    }
    // The API's changes name the key and the client's address.
    let key_id = app.store.keys(app.a.id).await.unwrap();
    let test_key_id = key_id
        .iter()
        .find(|k| k.mode == stablepay_domain::Mode::Test && k.id.to_string() != new_key)
        .unwrap()
        .id
        .to_string();
    let created = entry(&entries, "webhook_endpoint.created");
    assert_eq!(
        created["actor"],
        json!({ "type": "api_key", "id": test_key_id })
    );
    assert_eq!(created["client_address"], "127.0.0.1");
    assert_eq!(created["livemode"], false);
    assert_eq!(created["target"], endpoint["id"]);
    assert_eq!(created["before"], Value::Null);
    assert_eq!(created["after"]["url"], "https://m.example/h");
    let updated = entry(&entries, "webhook_endpoint.updated");
    assert_eq!(
        (&updated["before"], &updated["after"]),
        (
            &json!({ "url": "https://m.example/h", "description": null }),
            &json!({ "url": "https://m.example/other", "description": "ops" })
        )
    );
    // No secret is ever in the log.
    let secret = rotated["secret"].as_str().unwrap();
    assert!(!serde_json::to_string(&entries).unwrap().contains(secret));
    assert!(!serde_json::to_string(&entries).unwrap().contains("whsec_"));
    let revoked = entry(&entries, "wallet.revoked");
    assert_eq!(revoked["target"], wallet_id.as_str());
    assert_eq!(
        (&revoked["before"]["status"], &revoked["after"]["status"]),
        (&json!("verified"), &json!("revoked"))
    );
    // The dashboard's changes name the user; the operator's, nobody.
    let user = entry(&entries, "user.password_set");
    assert_eq!(user["actor"]["type"], "user");
    assert_eq!(
        user["livemode"],
        Value::Null,
        "an account change serves both modes"
    );
    let api_key = entry(&entries, "api_key.revoked");
    assert_eq!(api_key["actor"], user["actor"]);
    assert_eq!(api_key["target"], new_key.as_str());
    assert_eq!(
        entry(&entries, "user.invited")["actor"],
        json!({ "type": "operator", "id": null })
    );
    let setting = entry(&entries, "settings.underpayment_tolerance_updated");
    assert_eq!(
        (&setting["before"], &setting["after"]),
        (
            &json!({ "underpayment_tolerance_bps": 0 }),
            &json!({ "underpayment_tolerance_bps": 50 })
        )
    );

    // The live key sees the account's entries, not test mode's; another merchant, none.
    assert_eq!(
        actions(&audit_events(&app, &app.a.live_key).await),
        [
            "settings.underpayment_tolerance_updated",
            "user.password_set",
            "user.invited",
            "api_key.created"
        ],
        "the live key's own creation is live mode's"
    );
    let theirs = audit_events(&app, &app.b.test_key).await;
    assert_eq!(actions(&theirs), ["api_key.created"], "only B's own key");
    assert!(theirs.iter().all(|e| !entries.contains(e)));
    // Paging: newest first, `starting_after` the last id of a page.
    let first: Value = app
        .get(key, "/audit_events?limit=5")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first["has_more"], true);
    let last = first["data"][4]["id"].as_str().unwrap();
    let next: Value = app
        .get(
            key,
            &format!("/audit_events?limit=100&starting_after={last}"),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(next["data"].as_array().unwrap().len(), entries.len() - 5);

    // Never editable: no route writes it, and the database refuses edits whoever asks.
    let id = entries[0]["id"].as_str().unwrap();
    for method in ["POST", "PUT", "PATCH", "DELETE"] {
        for path in ["/audit_events".to_owned(), format!("/audit_events/{id}")] {
            let res = app
                .client
                .request(method.parse().unwrap(), app.url(&path))
                .bearer_auth(key)
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            assert!(
                [404, 405].contains(&res.status().as_u16()),
                "{method} {path}: {}",
                res.status()
            );
        }
    }
    for sql in [
        "UPDATE audit_events SET action = 'api_key.created'",
        "DELETE FROM audit_events",
        "TRUNCATE audit_events",
    ] {
        let err = stablepay_postgres::testing::execute_sql(&app.store, sql)
            .await
            .unwrap_err();
        assert!(err.contains("append-only"), "{sql}: {err}");
    }
    assert_eq!(audit_events(&app, key).await.len(), entries.len());
    // The history page shows the same entries.
    let page = b.text("/dashboard/test/security/history").await;
    for e in &entries {
        assert!(page.contains(e["id"].as_str().unwrap()), "{e}");
    }
}

/// The id of the newest key on the API keys page.
fn hidden_key_id(html: &str) -> String {
    let start = html.find("key_").expect("a key id");
    html[start..start + 26].to_owned()
}

#[tokio::test]
async fn the_merchants_default_tolerance_reaches_new_payment_sessions_only() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    app.verified_wallet(key, &WALLET_KEY).await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let create = |body: Value| {
        let app = &app;
        async move {
            let res = app.post(key, "/checkout/sessions", body).await;
            let status = res.status();
            let s: Value = res.json().await.unwrap();
            assert_eq!(status, 201, "{s}");
            s
        }
    };
    let body = || json!({ "mode": "payment", "title": "Beans", "amount": "20.00" });
    assert_eq!(create(body()).await["underpayment_tolerance_bps"], 0);

    let page = b.text("/dashboard/test/settings").await;
    assert!(page.contains("0 basis points (0 %)"), "{page}");
    let csrf = hidden(&page, "csrf");
    // Out of range or not a number: named on the page, nothing changes.
    for bad in ["1001", "-1", "0.5", "lots"] {
        let res = b
            .post(
                "/dashboard/test/settings",
                &[("csrf", &csrf), ("underpayment_tolerance_bps", bad)],
            )
            .await;
        assert_eq!(res.status(), 200, "{bad}");
        assert!(
            res.text().await.unwrap().contains("from 0 to 1000"),
            "{bad}"
        );
    }
    assert_eq!(create(body()).await["underpayment_tolerance_bps"], 0);
    // Without the page's CSRF token the form does nothing.
    let res = b
        .post(
            "/dashboard/test/settings",
            &[("csrf", "forged"), ("underpayment_tolerance_bps", "500")],
        )
        .await;
    assert_eq!(res.status(), 403);

    let res = b
        .post(
            "/dashboard/live/settings",
            &[("csrf", &csrf), ("underpayment_tolerance_bps", "75")],
        )
        .await;
    assert_eq!(res.status(), 303);
    assert!(b
        .text("/dashboard/test/settings")
        .await
        .contains("75 basis points (0.75 %)"));
    // Both modes' new sessions take it; a session's own value wins; old sessions keep
    // theirs; another merchant's are untouched.
    assert_eq!(create(body()).await["underpayment_tolerance_bps"], 75);
    let mut own = body();
    own["underpayment_tolerance_bps"] = json!(0);
    assert_eq!(create(own).await["underpayment_tolerance_bps"], 0);
    app.verified_wallet(&app.a.live_key, &WALLET_KEY_2).await;
    let mut live = body();
    live["recipient"] = json!(stablepay_domain::rules::eip191::address_of_private_key(
        &WALLET_KEY_2
    )
    .unwrap()
    .to_string());
    let res = app.post(&app.a.live_key, "/checkout/sessions", live).await;
    let s: Value = res.json().await.unwrap();
    assert_eq!(s["underpayment_tolerance_bps"], 75, "{s}");
    app.verified_wallet(&app.b.test_key, &WALLET_KEY).await;
    let res = app
        .post(&app.b.test_key, "/checkout/sessions", body())
        .await;
    let s: Value = res.json().await.unwrap();
    assert_eq!(s["underpayment_tolerance_bps"], 0, "{s}");
    // A subscription's charges stay exact whatever the default (no plan is read here:
    // the refusal of an explicit tolerance comes before any chain read).
    let res = app
        .post(
            &app.a.live_key,
            "/checkout/sessions",
            json!({ "mode": "subscription", "title": "Plan", "chain_plan_id": "1",
                    "underpayment_tolerance_bps": 10 }),
        )
        .await;
    assert_eq!(res.status(), 400);
    let err: Value = res.json().await.unwrap();
    assert_eq!(
        err["error"]["details"][0]["field"], "underpayment_tolerance_bps",
        "{err}"
    );
}
