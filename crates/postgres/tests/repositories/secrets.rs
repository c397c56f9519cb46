//! Webhook signing secrets: encrypted at rest, and the key that seals them rotated
//! without downtime.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn webhook_secrets_are_encrypted_at_rest() {
    let (store, url) = fresh_store().await;
    let m = new_merchant(&store, "M").await;
    let endpoint = WebhookEndpoint {
        id: WebhookEndpointId::generate(),
        merchant_id: m,
        mode: Mode::Test,
        url: WebhookUrl::parse("https://m.example/h").unwrap(),
        enabled_events: vec![],
        status: EndpointStatus::Enabled,
        description: None,
        created_at: Timestamp::new(chrono::Utc::now()),
        disabled_reason: None,
    };
    WebhookEndpointRepository::insert(
        &store,
        &endpoint,
        "whsec_plaintextsecret",
        &stablepay_postgres::testing::operator_audit(
            endpoint.merchant_id,
            stablepay_domain::AuditAction::WebhookEndpointCreated,
            endpoint.id,
        ),
    )
    .await
    .unwrap();
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    use stablepay_postgres::schema::webhook_endpoints as we;
    let sealed: Vec<u8> = we::table
        .select(we::secret_ciphertext)
        .first(&mut conn)
        .await
        .unwrap();
    assert!(
        !sealed.windows(9).any(|w| w == b"plaintext"),
        "secret must not be stored in clear"
    );
    assert_eq!(
        store.decrypt_secret(endpoint.id.uuid(), &sealed).unwrap(),
        "whsec_plaintextsecret"
    );
}

/// An endpoint's id, secret ciphertext and previous secret ciphertext.
type SealedRow = (uuid::Uuid, Vec<u8>, Option<Vec<u8>>);

async fn sealed_rows(conn: &mut AsyncPgConnection) -> Vec<SealedRow> {
    use stablepay_postgres::schema::webhook_endpoints as we;
    we::table
        .select((
            we::id,
            we::secret_ciphertext,
            we::previous_secret_ciphertext,
        ))
        .load(conn)
        .await
        .unwrap()
}

/// Rotating `STABLEPAY_SECRETS_KEY`: with the old key as `STABLEPAY_SECRETS_KEY_PREVIOUS`,
/// every secret still opens; one re-sealing pass rewrites them (both of a rotating
/// endpoint's secrets, TOTP seeds and pre-key-id rows) under the new key, after which the
/// old key is not needed. A ciphertext moved onto another endpoint's row does not open.
#[tokio::test(flavor = "multi_thread")]
async fn the_secrets_key_rotates_without_downtime() {
    use stablepay_postgres::{PgStore, PoolConfig, SecretCipher};
    let (old_store, url) = fresh_store().await; // sealed with [7; 32]
    let m = new_merchant(&old_store, "M").await;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let new_endpoint = || stablepay_domain::services::NewEndpoint {
        url: WebhookUrl::parse("https://m.example/h").unwrap(),
        enabled_events: vec![],
        description: None,
    };
    let (a, secret_a) = stablepay_domain::services::create_webhook_endpoint(
        &ctx,
        new_endpoint(),
        &stablepay_domain::Changer::OPERATOR,
        &old_store,
        &SystemClock,
    )
    .await
    .unwrap();
    let (b, _) = stablepay_domain::services::create_webhook_endpoint(
        &ctx,
        new_endpoint(),
        &stablepay_domain::Changer::OPERATOR,
        &old_store,
        &SystemClock,
    )
    .await
    .unwrap();
    let rotated_secret = WebhookEndpointRepository::rotate_secret(
        &old_store,
        m,
        Mode::Test,
        b.id,
        "whsec_rotated",
        3600,
        &stablepay_postgres::testing::operator_audit(
            m,
            stablepay_domain::AuditAction::WebhookEndpointSecretRotated,
            b.id,
        ),
    )
    .await
    .unwrap();
    assert_eq!(rotated_secret.id, b.id);
    let mut conn = AsyncPgConnection::establish(&url).await.unwrap();
    let sealed_of = |rows: &[SealedRow], id: WebhookEndpointId| {
        rows.iter().find(|r| r.0 == id.uuid()).cloned().unwrap()
    };
    let before = sealed_rows(&mut conn).await;
    // Bound to its row: A's ciphertext does not open as B's.
    assert!(old_store
        .decrypt_secret(b.id.uuid(), &sealed_of(&before, a.id).1)
        .is_err());

    let key = |k: u8| [k; 32];
    let rotating = PgStore::connect(
        &url,
        &PoolConfig::default(),
        SecretCipher::new(&key(8))
            .unwrap()
            .with_previous(&key(7))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        rotating
            .decrypt_secret(a.id.uuid(), &sealed_of(&before, a.id).1)
            .unwrap(),
        secret_a
    );
    let report = rotating.reseal_secrets().await.unwrap();
    assert_eq!((report.resealed, report.unreadable), (2, 0));
    assert_eq!(
        rotating.reseal_secrets().await.unwrap().resealed,
        0,
        "a second pass finds nothing to do"
    );

    let after = sealed_rows(&mut conn).await;
    let new_only = PgStore::connect(
        &url,
        &PoolConfig::default(),
        SecretCipher::new(&key(8)).unwrap(),
    )
    .unwrap();
    let (_, a_sealed, _) = sealed_of(&after, a.id);
    assert_ne!(a_sealed, sealed_of(&before, a.id).1);
    assert_eq!(
        new_only.decrypt_secret(a.id.uuid(), &a_sealed).unwrap(),
        secret_a
    );
    let (_, b_sealed, b_previous) = sealed_of(&after, b.id);
    assert_eq!(
        new_only.decrypt_secret(b.id.uuid(), &b_sealed).unwrap(),
        "whsec_rotated"
    );
    assert!(new_only
        .decrypt_secret(b.id.uuid(), &b_previous.unwrap())
        .unwrap()
        .starts_with("whsec_"));
    assert!(old_store.decrypt_secret(a.id.uuid(), &a_sealed).is_err());
}
