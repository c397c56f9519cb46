//! Wallet verification: a challenge used once under a race, and a wallet verified
//! meanwhile never set back to pending.

use super::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_challenge_can_be_used_once_even_under_a_race() {
    let (store, m) = stablepay_postgres::testing::store_with_merchant().await;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let address = Address::from_bytes([5; 20]);
    let by = stablepay_domain::Changer::OPERATOR;
    let reg = register_wallet(&ctx, address, ChainId::Base, &by, &store, &SystemClock)
        .await
        .unwrap();
    let nonce = reg.challenge.as_ref().unwrap().nonce.clone();
    let now = Timestamp::new(chrono::Utc::now());
    let verified_audit = stablepay_postgres::testing::operator_audit(
        m,
        stablepay_domain::AuditAction::WalletVerified,
        reg.wallet.id,
    );
    let (a, b) = tokio::join!(
        store.mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit),
        store.mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let won = |u: &ChallengeUse| matches!(u, ChallengeUse::Consumed(_));
    assert_eq!(
        [won(&a), won(&b)].iter().filter(|w| **w).count(),
        1,
        "exactly one wins: {a:?} {b:?}"
    );
    let loser = if won(&a) { b } else { a };
    assert_eq!(loser, ChallengeUse::NotUsable);
    // The registration and the one verification are in the audit log; the loser wrote
    // nothing.
    let log = stablepay_domain::ports::AuditLog::audit_events(
        &store,
        m,
        Mode::Live,
        &stablepay_domain::PageRequest::first(10),
    )
    .await
    .unwrap();
    let actions: Vec<_> = log.data.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["wallet.verified"],
        "test-mode entries are not live's"
    );
    let log = stablepay_domain::ports::AuditLog::audit_events(
        &store,
        m,
        Mode::Test,
        &stablepay_domain::PageRequest::first(10),
    )
    .await
    .unwrap();
    let actions: Vec<_> = log.data.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["wallet.verified", "wallet.registered"]);
    assert_eq!(
        WalletRepository::get(&store, m, reg.wallet.id)
            .await
            .unwrap()
            .unwrap()
            .status,
        WalletStatus::Verified
    );
}

/// A wallet verified (by a live key, say) after a registration read it as pending stays
/// verified: the restart changes nothing and stores no challenge.
#[tokio::test(flavor = "multi_thread")]
async fn a_wallet_verified_meanwhile_is_not_restarted() {
    let (store, m) = stablepay_postgres::testing::store_with_merchant().await;
    let ctx = stablepay_postgres::testing::api_key_context(m, Mode::Test);
    let reg = register_wallet(
        &ctx,
        Address::from_bytes([6; 20]),
        ChainId::Base,
        &stablepay_domain::Changer::OPERATOR,
        &store,
        &SystemClock,
    )
    .await
    .unwrap();
    let nonce = reg.challenge.as_ref().unwrap().nonce.clone();
    let now = Timestamp::new(chrono::Utc::now());
    let verified_audit = stablepay_postgres::testing::operator_audit(
        m,
        stablepay_domain::AuditAction::WalletVerified,
        reg.wallet.id,
    );
    let stale = reg.wallet.clone();
    assert!(matches!(
        store
            .mark_verified(reg.wallet.id, &nonce, now, Mode::Live, &verified_audit)
            .await
            .unwrap(),
        ChallengeUse::Consumed(_)
    ));
    let challenge = WalletChallenge {
        nonce: "ff".into(),
        ..reg.challenge.clone().unwrap()
    };
    let after = store
        .restart_verification(&stale, &challenge, &verified_audit)
        .await
        .unwrap();
    assert_eq!(
        (after.status, after.verified_mode),
        (WalletStatus::Verified, Some(Mode::Live))
    );
    assert_eq!(
        store
            .latest_challenge(reg.wallet.id)
            .await
            .unwrap()
            .unwrap()
            .nonce,
        nonce,
        "no new challenge"
    );
}
