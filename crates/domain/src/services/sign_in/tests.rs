use futures_executor::block_on;
use mockall::predicate::eq;

use super::*;
use crate::model::{DashboardUserId, LoginRecord, MerchantId, NewPassword, Timestamp, UserStatus};
use crate::ports::{MockClock, MockDashboardUserStore};
use crate::rules::dashboard_auth::hash_password;

const PASSWORD: &str = "correct horse battery";

fn at(s: i64) -> Timestamp {
    Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
}

fn clock(now: Timestamp) -> MockClock {
    let mut c = MockClock::new();
    c.expect_now().return_const(now);
    c
}

fn record(status: UserStatus, failures: u32, totp: Option<Vec<u8>>) -> LoginRecord {
    let hash = hash_password(&NewPassword::parse(PASSWORD).expect("valid")).expect("hash");
    LoginRecord {
        user: DashboardUser {
            id: DashboardUserId::generate(),
            merchant_id: MerchantId::generate(),
            email: Email::parse("ops@merchant.example").expect("email"),
            status,
            totp_enabled: totp.is_some(),
            created_at: at(-100),
        },
        password_hash: Some(hash),
        totp_secret: totp,
        failed_logins: failures,
        locked_until: None,
        totp_last_step: None,
    }
}

fn store_with(record: Option<LoginRecord>) -> MockDashboardUserStore {
    let mut users = MockDashboardUserStore::new();
    users.expect_login_record().return_once(move |_| Ok(record));
    users
}

fn attempt(
    users: &MockDashboardUserStore,
    password: &str,
    code: Option<&str>,
) -> Result<SignedIn, SignInError> {
    block_on(sign_in(
        " Ops@Merchant.example",
        password,
        code,
        &SessionPolicy::default(),
        users,
        &clock(at(0)),
    ))
}

#[test]
fn the_right_password_opens_a_session_stored_by_hash() {
    let mut users = store_with(Some(record(UserStatus::Active, 2, None)));
    users
        .expect_open_session()
        .withf(|_, _, now| *now == at(0))
        .times(1)
        .returning(|_, _, _| Ok(()));
    let signed = attempt(&users, PASSWORD, None).expect("signed in");
    assert_eq!(signed.token.len(), 64);
}

#[test]
fn unknown_emails_and_wrong_passwords_look_the_same() {
    let users = store_with(None);
    let unknown = attempt(&users, PASSWORD, None).unwrap_err();
    let mut users = store_with(Some(record(UserStatus::Active, 0, None)));
    users
        .expect_record_login_failure()
        .times(1)
        .returning(|_| Ok(1));
    let wrong = attempt(&users, "wrong password!", None).unwrap_err();
    assert_eq!(unknown.to_string(), wrong.to_string());
    assert!(matches!(wrong, SignInError::InvalidCredentials));
}

#[test]
fn the_fifth_failure_locks_the_account() {
    let rec = record(UserStatus::Active, 4, None);
    let id = rec.user.id;
    let mut users = store_with(Some(rec));
    users
        .expect_record_login_failure()
        .with(eq(id))
        .returning(|_| Ok(5));
    users
        .expect_lock_user()
        .with(eq(id), eq(at(900)))
        .times(1)
        .returning(|_, _| Ok(()));
    let err = attempt(&users, "wrong password!", None).unwrap_err();
    assert!(matches!(err, SignInError::InvalidCredentials));
}

#[test]
fn a_locked_account_refuses_even_the_right_password() {
    let mut rec = record(UserStatus::Active, 5, None);
    rec.locked_until = Some(at(60));
    let users = store_with(Some(rec));
    let err = attempt(&users, PASSWORD, None).unwrap_err();
    assert!(
        matches!(err, SignInError::InvalidCredentials),
        "a lock looks like a wrong password"
    );
}

#[test]
fn disabled_and_invited_accounts_cannot_sign_in() {
    for status in [UserStatus::Disabled, UserStatus::Invited] {
        let mut users = store_with(Some(record(status, 0, None)));
        users.expect_record_login_failure().returning(|_| Ok(1));
        let err = attempt(&users, PASSWORD, None).unwrap_err();
        assert!(matches!(err, SignInError::InvalidCredentials), "{status:?}");
    }
}

#[test]
fn a_second_factor_needs_a_current_code() {
    let secret = b"12345678901234567890".to_vec();
    let code = format!("{:06}", totp::code_at(&secret, at(0).unix_seconds()));
    let mut users = store_with(Some(record(UserStatus::Active, 0, Some(secret.clone()))));
    users.expect_record_login_failure().times(0);
    let err = attempt(&users, PASSWORD, None).unwrap_err();
    assert!(
        matches!(err, SignInError::TotpRequired),
        "the right password without a code asks for it, uncounted"
    );
    let mut users = store_with(Some(record(UserStatus::Active, 0, Some(secret.clone()))));
    users
        .expect_record_login_failure()
        .times(1)
        .returning(|_| Ok(1));
    let err = attempt(&users, PASSWORD, Some("000000")).unwrap_err();
    assert!(matches!(
        err,
        SignInError::TotpRequired | SignInError::InvalidCredentials
    ));

    let step = at(0).unix_seconds() / 30;
    let mut users = store_with(Some(record(UserStatus::Active, 0, Some(secret.clone()))));
    users
        .expect_use_totp_step()
        .with(mockall::predicate::always(), eq(step))
        .times(1)
        .returning(|_, _| Ok(true));
    users
        .expect_open_session()
        .times(1)
        .returning(|_, _, _| Ok(()));
    attempt(&users, PASSWORD, Some(&code)).expect("signed in with the code");

    // The same code again (its step already used) is refused.
    let mut used = record(UserStatus::Active, 0, Some(secret));
    used.totp_last_step = Some(step);
    let mut users = store_with(Some(used));
    users
        .expect_record_login_failure()
        .times(1)
        .returning(|_| Ok(1));
    users.expect_open_session().times(0);
    let err = attempt(&users, PASSWORD, Some(&code)).unwrap_err();
    assert!(
        matches!(err, SignInError::TotpRequired),
        "a code is single-use"
    );
}
