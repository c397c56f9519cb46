//! How a page of sessions filtered by status reads: expiry is applied at the reader's
//! time, so `status=expired` is the sessions stored as expired together with the open
//! ones past expiry, merged newest first across pages (`repos/sessions.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_domain::ports::*;
use stablepay_domain::*;
use stablepay_postgres::testing::{api_key_context, new_session, store_with_merchant};
use stablepay_request_store::{ReadShape, RequestStore};

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
