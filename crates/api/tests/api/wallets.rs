use serde_json::{json, Value};
use stablepay_domain::rules::eip191;

use crate::support::*;

#[tokio::test]
async fn register_verify_reregister_and_revoke() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let address = eip191::address_of_private_key(&WALLET_KEY)
        .unwrap()
        .to_string();
    let res = app
        .post(
            key,
            "/wallets",
            json!({ "address": address.to_lowercase() }),
        )
        .await;
    assert_eq!(res.status(), 201);
    let w: Value = res.json().await.unwrap();
    assert_eq!(
        (w["status"].as_str(), w["chain_id"].as_u64()),
        (Some("pending"), Some(8453))
    );
    assert_eq!(w["address"], address);
    let message = w["verification"]["message"].as_str().unwrap();
    assert!(message.contains(&address) && message.contains(&app.a.id.to_string()));
    assert!(w["verification"]["expires_at"].as_str().is_some());
    let id = w["id"].as_str().unwrap();

    // A signature by another key is refused, and the challenge stays usable.
    let wrong = eip191::sign(message.as_bytes(), &WALLET_KEY_2)
        .unwrap()
        .to_hex();
    let err = assert_error(
        app.post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": wrong }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["signature"]);
    let err = assert_error(
        app.post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": "nothex" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["signature"]);

    let good = eip191::sign(message.as_bytes(), &WALLET_KEY)
        .unwrap()
        .to_hex();
    let res = app
        .post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": good }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["status"], "verified");
    // The challenge is single use.
    assert_error(
        app.post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": good }),
        )
        .await,
        409,
        "conflict_error",
    )
    .await;
    // Registering a verified address returns it unchanged.
    let res = app
        .post(key, "/wallets", json!({ "address": address }))
        .await;
    assert_eq!(res.status(), 200);
    let again: Value = res.json().await.unwrap();
    assert_eq!(
        (again["id"].as_str(), again["status"].as_str()),
        (Some(id), Some("verified"))
    );
    assert!(again.get("verification").is_none());
    // Wallets belong to the merchant, not the mode.
    let live: Value = app
        .get(&app.a.live_key, &format!("/wallets/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(live["status"], "verified");
    assert_error(
        app.get(&app.b.test_key, &format!("/wallets/{id}")).await,
        404,
        "not_found_error",
    )
    .await;

    let list: Value = app.get(key, "/wallets").await.json().await.unwrap();
    assert_eq!(list["data"][0]["id"], id);

    let res = app.delete(key, &format!("/wallets/{id}")).await;
    assert_eq!(res.status(), 200);
    let revoked: Value = res.json().await.unwrap();
    assert_eq!(revoked["status"], "revoked");
    // A revoked wallet can no longer be a recipient.
    let err = assert_error(
        app.post(
            key,
            "/checkout/sessions",
            json!({ "mode": "payment", "title": "T", "amount": "1" }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
    // Registering it again issues a fresh challenge.
    let res = app
        .post(
            key,
            "/wallets",
            json!({ "address": address, "chain_id": 84532 }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let re: Value = res.json().await.unwrap();
    assert_eq!(
        (re["status"].as_str(), re["chain_id"].as_u64()),
        (Some("pending"), Some(84532))
    );
    assert_ne!(re["verification"]["message"].as_str(), Some(message));
}

#[tokio::test]
async fn expired_challenges_are_400() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let w = app.registered_wallet(key, &WALLET_KEY).await;
    let id = w["id"].as_str().unwrap();
    // A challenge lives one hour.
    app.clock.advance(std::time::Duration::from_secs(3601));
    let sig = eip191::sign(
        w["verification"]["message"].as_str().unwrap().as_bytes(),
        &WALLET_KEY,
    )
    .unwrap()
    .to_hex();
    let err = assert_error(
        app.post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": sig }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(err["error"]["message"]
        .as_str()
        .unwrap()
        .contains("expired"));
}

#[tokio::test]
async fn registration_input_rules() {
    let app = spawn_app().await;
    let key = &app.a.test_key;
    for (body, field) in [
        (json!({}), "address"),
        (json!({ "address": "0x123" }), "address"),
        (
            json!({ "address": "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" }),
            "address",
        ),
        (
            json!({ "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "chain_id": 1 }),
            "chain_id",
        ),
        (
            json!({ "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "chain_id": "8453" }),
            "chain_id",
        ),
    ] {
        let err = assert_error(
            app.post(key, "/wallets", body.clone()).await,
            400,
            "invalid_request_error",
        )
        .await;
        assert_eq!(detail_fields(&err), [field], "{body}");
    }
    assert_error(
        app.get(key, "/wallets/wal_nope").await,
        404,
        "not_found_error",
    )
    .await;
    assert_error(
        app.delete(key, "/wallets/wal_nope").await,
        404,
        "not_found_error",
    )
    .await;
}

#[tokio::test]
async fn erc1271_smart_wallets_verify_through_the_chain() {
    let env = test_chains()
        .expect("STABLEPAY_TEST_CHAINS is not set: run the tests through `cargo xtask test`");
    let wallet = &env["chains"]["8453"]["smart_wallet"];
    let address = wallet["address"].as_str().unwrap();
    let mut owner = [0u8; 32];
    hex::decode_to_slice(
        wallet["owner_private_key"]
            .as_str()
            .unwrap()
            .trim_start_matches("0x"),
        &mut owner,
    )
    .unwrap();
    let app = spawn_app().await;
    let key = &app.a.test_key;
    let reg: Value = app
        .post(
            key,
            "/wallets",
            json!({ "address": address, "chain_id": 8453 }),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = reg["id"].as_str().unwrap();
    let message = reg["verification"]["message"].as_str().unwrap();
    // Another key's signature is refused by the contract.
    let wrong = eip191::sign(message.as_bytes(), &WALLET_KEY)
        .unwrap()
        .to_hex();
    let err = assert_error(
        app.post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": wrong }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["signature"]);
    // The owner's personal_sign is accepted through isValidSignature.
    let sig = eip191::sign(message.as_bytes(), &owner).unwrap().to_hex();
    let res = app
        .post(
            key,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": sig }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let verified: Value = res.json().await.unwrap();
    assert_eq!(verified["status"], "verified");
    // It can now receive sessions.
    let s = app
        .create_session(
            key,
            json!({ "mode": "payment", "title": "T", "amount": "1" }),
        )
        .await;
    assert_eq!(
        s["recipient_address"].as_str().unwrap().to_lowercase(),
        address.to_lowercase()
    );
}

/// D25: a test key cannot take a live-verified wallet out of service, and a live session
/// without `recipient` never defaults to a wallet only a test key verified.
#[tokio::test]
async fn test_keys_cannot_redirect_live_money() {
    let app = spawn_app().await;
    let (test, live) = (&app.a.test_key, &app.a.live_key);
    let live_wallet = app.verified_wallet(live, &WALLET_KEY).await;
    let id = app.registered_wallet(live, &WALLET_KEY).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let w: Value = app
        .get(test, &format!("/wallets/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (w["status"].as_str(), w["verified_mode"].as_str()),
        (Some("verified"), Some("live"))
    );

    // The test key's DELETE: 400 naming the need for a live key; the wallet unchanged.
    let err = assert_error(
        app.delete(test, &format!("/wallets/{id}")).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("live key"),
        "{err}"
    );
    let w: Value = app
        .get(live, &format!("/wallets/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(w["status"], "verified");

    // The test key verifies a wallet of its own: live sessions still default to the live
    // one (the only live-verified wallet), test sessions must now choose.
    let test_wallet = app.verified_wallet(test, &WALLET_KEY_2).await;
    let body = json!({ "mode": "payment", "title": "T", "amount": "1" });
    let s = app.create_session(live, body.clone()).await;
    assert_eq!(s["recipient_address"], live_wallet);
    let err = assert_error(
        app.post(test, "/checkout/sessions", body.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);

    // The live key revokes its wallet: the only verified wallet left is test-verified,
    // so a live session without `recipient` is refused rather than paying it...
    let res = app.delete(live, &format!("/wallets/{id}")).await;
    assert_eq!(res.status(), 200);
    let err = assert_error(
        app.post(live, "/checkout/sessions", body.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
    assert!(
        err["error"]["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("live key"),
        "{err}"
    );
    // ...nor one that names it (a live session pays only a live-verified wallet), while
    // test sessions default to it.
    let naming =
        json!({ "mode": "payment", "title": "T", "amount": "1", "recipient": test_wallet });
    let err = assert_error(
        app.post(live, "/checkout/sessions", naming.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    assert_eq!(detail_fields(&err), ["recipient"]);
    assert!(
        err["error"]["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("live key"),
        "{err}"
    );
    // The live key registers it again (a challenge, the wallet still verified for test
    // money meanwhile) and verifies it: now live sessions may name it.
    app.verified_wallet(live, &WALLET_KEY_2).await;
    let named = app.create_session(live, naming).await;
    assert_eq!(named["recipient_address"], test_wallet);
    assert_eq!(
        app.create_session(test, body).await["recipient_address"],
        test_wallet
    );
    // Verified by the live key now: the test key may no longer revoke it.
    let test_id = app.registered_wallet(test, &WALLET_KEY_2).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        app.delete(test, &format!("/wallets/{test_id}"))
            .await
            .status(),
        400
    );
}

/// D25: a wallet a live key revoked is registered or verified again only by a live key,
/// and until then no live session pays it.
#[tokio::test]
async fn a_wallet_a_live_key_revoked_comes_back_only_by_a_live_key() {
    let app = spawn_app().await;
    let (test, live) = (&app.a.test_key, &app.a.live_key);
    let address = app.verified_wallet(live, &WALLET_KEY).await;
    let id = app.registered_wallet(live, &WALLET_KEY).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        app.delete(live, &format!("/wallets/{id}")).await.status(),
        200
    );

    // The test key's registration: 400 naming the need for a live key, nothing issued.
    let err = assert_error(
        app.post(test, "/wallets", json!({ "address": address }))
            .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("live key"),
        "{err}"
    );
    let naming = json!({ "mode": "payment", "title": "T", "amount": "1", "recipient": address });
    assert_error(
        app.post(live, "/checkout/sessions", naming.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;

    // The live key registers it again; the test key cannot use that challenge.
    let reg = app.registered_wallet(live, &WALLET_KEY).await;
    assert_eq!(reg["status"], "pending");
    let message = reg["verification"]["message"].as_str().unwrap();
    let sig = eip191::sign(message.as_bytes(), &WALLET_KEY)
        .unwrap()
        .to_hex();
    let err = assert_error(
        app.post(
            test,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": sig }),
        )
        .await,
        400,
        "invalid_request_error",
    )
    .await;
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("live key"),
        "{err}"
    );
    assert_error(
        app.post(live, "/checkout/sessions", naming.clone()).await,
        400,
        "invalid_request_error",
    )
    .await;
    // The live key verifies it: live money may go there again.
    let res = app
        .post(
            live,
            &format!("/wallets/{id}/verify"),
            json!({ "signature": sig }),
        )
        .await;
    assert_eq!(res.status(), 200);
    let s = app.create_session(live, naming).await;
    assert_eq!(s["recipient_address"], address);
}
