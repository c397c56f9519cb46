//! The merchant's settings (D32's tolerance, D33's screening choice): each change written
//! with its audit entry, whose `before` is what the setting held; an unknown merchant is
//! `NotFound` with nothing written.

use super::*;
use stablepay_domain::rules::screening::MerchantScreening;
use stablepay_domain::services::choice_json;

#[tokio::test(flavor = "multi_thread")]
async fn each_setting_change_is_stored_with_what_it_replaced() {
    let (store, m) = stablepay_postgres::testing::store_with_merchant().await;
    assert_eq!(
        store.merchant_screening(m).await.unwrap(),
        MerchantScreening::default(),
        "no choice made: the deployment's defaults"
    );
    let audit = |action| stablepay_postgres::testing::operator_audit(m, action, m);
    let choice = MerchantScreening {
        test: Some(false),
        live: Some(true),
    };
    let entry = audit(AuditAction::ScreeningUpdated).after(choice_json(choice));
    store.set_screening(m, choice, &entry).await.unwrap();
    assert_eq!(store.merchant_screening(m).await.unwrap(), choice);
    let fifty = UnderpaymentTolerance::from_bps(50).unwrap();
    store
        .set_underpayment_tolerance(m, fifty, &audit(AuditAction::UnderpaymentToleranceUpdated))
        .await
        .unwrap();

    let entries = store
        .audit_events(m, Mode::Test, &PageRequest::first(10))
        .await
        .unwrap()
        .data;
    assert_eq!(entries.len(), 2);
    // Newest first.
    assert_eq!(entries[0].action, AuditAction::UnderpaymentToleranceUpdated);
    assert_eq!(
        entries[0].before,
        Some(serde_json::json!({ "underpayment_tolerance_bps": 0 }))
    );
    assert_eq!(entries[1].action, AuditAction::ScreeningUpdated);
    assert_eq!(
        entries[1].before,
        Some(serde_json::json!({ "test": null, "live": null }))
    );
    assert_eq!(
        entries[1].after,
        Some(serde_json::json!({ "test": false, "live": true }))
    );

    let unknown = MerchantId::generate();
    assert_eq!(
        store
            .set_screening(unknown, choice, &entry)
            .await
            .unwrap_err(),
        StoreError::NotFound
    );
    assert_eq!(
        store.merchant_screening(unknown).await.unwrap(),
        MerchantScreening::default()
    );
}
