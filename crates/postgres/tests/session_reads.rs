//! How sessions read. One session is read with the merchant's wallet at its recipient
//! address, in one statement under the key's check (a GET shows a deposit address only
//! while that wallet takes the money, D30). A page of sessions filtered by status applies
//! expiry at the reader's time, so `status=expired` is the sessions stored as expired
//! together with the open ones past expiry, merged newest first across pages
//! (`repos/sessions.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{
    api_key_context, key_of, new_merchant, new_session, store_wallet, store_with_merchant,
    stored_session,
};
use stablepay_request_store::{KeyClaim, ReadShape, RequestStore};

#[tokio::test]
async fn a_session_reads_with_its_merchants_wallet_at_the_recipient_address() {
    let (store, m) = store_with_merchant().await;
    let other = new_merchant(&store, "Other").await;
    let (key, hash, scope) = key_of(&store, m, Mode::Test).await;
    let session = stored_session(&store, m, Some(Address::from_bytes([0xd0; 20]))).await;
    let read = || {
        let (store, scope) = (store.clone(), scope.clone());
        let claim = KeyClaim {
            key_sha256: hash,
            claimed: scope.clone(),
        };
        async move {
            let unit = store
                .open_reads(&scope, Some(claim), ReadShape::One)
                .await
                .unwrap();
            let found = unit.reads().session(session.id).await.unwrap();
            let stood = found.key_stood();
            let found = found.into_value().expect("the session");
            assert_eq!(found.session.id, session.id);
            (stood, found.recipient.map(|w| w.status))
        }
    };
    // The merchant's wallet at another address, and another merchant's wallet at the same
    // address, are never the recipient's.
    store_wallet(
        &store,
        m,
        Address::from_bytes([0x0e; 20]),
        WalletStatus::Verified,
    )
    .await;
    store_wallet(
        &store,
        other,
        session.recipient_address,
        WalletStatus::Verified,
    )
    .await;
    assert_eq!(read().await, (true, None));
    store_wallet(&store, m, session.recipient_address, WalletStatus::Revoked).await;
    assert_eq!(read().await, (true, Some(WalletStatus::Revoked)));
    // A session of another merchant is not read, whatever its wallets.
    let theirs = stored_session(&store, other, None).await;
    let unit = store
        .open_reads(&scope, None, ReadShape::One)
        .await
        .unwrap();
    assert!(unit
        .reads()
        .session(theirs.id)
        .await
        .unwrap()
        .into_value()
        .is_none());
    drop(unit);
    // Revoked: the joined read neither stands nor serves the session.
    store.revoke_api_key(key).await.unwrap();
    let claim = KeyClaim {
        key_sha256: hash,
        claimed: scope.clone(),
    };
    let unit = store
        .open_reads(&scope, Some(claim), ReadShape::One)
        .await
        .unwrap();
    let found = unit.reads().session(session.id).await.unwrap();
    assert!(!found.key_stood() && found.into_value().is_none());
}

#[tokio::test]
async fn expired_pages_merge_stored_and_lapsed_sessions_newest_first() {
    let (store, m) = store_with_merchant().await;
    let scope = api_key_context(m, Mode::Test);
    let base = new_session(m, None).expires_at;
    // Five sessions, alternately lapsing and stored as expired, one still payable, and
    // one past expiry but waiting for the merchant's review (D33).
    let mut ids = Vec::new();
    let mut live = None;
    let mut in_review = None;
    for n in 0..7 {
        let mut s = new_session(m, None);
        s.expires_at = base.plus_seconds(if n == 3 { 7_200 } else { 0 });
        s.awaiting_review = n == 5;
        SessionRepository::insert(&store, &s).await.unwrap();
        match n {
            3 => live = Some(s.id),
            5 => in_review = Some(s.id),
            _ => ids.push(s.id),
        }
    }
    let later = base.plus_seconds(60);
    for id in ids.iter().step_by(2) {
        let stored = SessionRepository::expire(&store, *id, later).await.unwrap();
        assert_eq!(stored.status, SessionStatus::Expired);
    }
    ids.sort_by(|a, b| b.cmp(a));

    let unit = store
        .open_reads(&scope, None, ReadShape::Page)
        .await
        .unwrap();
    let page = |status, request: PageRequest| {
        let unit = &unit;
        async move {
            let filter = SessionFilter {
                status: Some(status),
                customer_reference: None,
                payment_link: None,
            };
            let page = unit
                .reads()
                .sessions(&filter, &request, later)
                .await
                .unwrap()
                .into_value();
            assert!(page
                .data
                .iter()
                .all(|s| s.status == status || status == SessionStatus::Open));
            let ids: Vec<_> = page.data.iter().map(|s| s.id).collect();
            (ids, page.has_more)
        }
    };
    let (first, more) = page(SessionStatus::Expired, PageRequest::first(3)).await;
    assert_eq!((first.as_slice(), more), (&ids[..3], true));
    let after = PageRequest::first(3).after(first[2].uuid());
    let (second, more) = page(SessionStatus::Expired, after).await;
    assert_eq!((second.as_slice(), more), (&ids[3..], false));
    // The payable one and the one in review are open; nothing else is.
    let (open, _) = page(SessionStatus::Open, PageRequest::first(20)).await;
    let mut expected = vec![live.unwrap(), in_review.unwrap()];
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(open, expected);
}
