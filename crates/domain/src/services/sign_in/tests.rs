use futures_executor::block_on;
use mockall::predicate::{always, eq};
use secrecy::ExposeSecret;

use super::*;
use crate::model::{DashboardUserId, LoginRecord, MerchantId, Timestamp, UserStatus};
use crate::ports::{MockClock, MockDashboardUserStore, MockPasswordChecker};

const PASSWORD: &str = "correct horse battery";
const HASH: &str = "$argon2id$stored";

fn at(s: i64) -> Timestamp {
    Timestamp::from_unix_seconds(1_800_000_000 + s).expect("time")
}

fn clock(now: Timestamp) -> MockClock {
    let mut c = MockClock::new();
    c.expect_now().return_const(now);
    c
}

fn record(status: UserStatus, totp: Option<Vec<u8>>) -> LoginRecord {
    LoginRecord {
        user: DashboardUser {
            id: DashboardUserId::generate(),
            merchant_id: MerchantId::generate(),
            email: Email::parse("ops@merchant.example").expect("email"),
            status,
            totp_enabled: totp.is_some(),
            created_at: at(-100),
        },
        password_hash: Some(HASH.into()),
        totp_secret: totp,
        failed_logins: 0,
        locked_until: None,
        totp_last_step: None,
    }
}

fn store_with(record: Option<LoginRecord>) -> MockDashboardUserStore {
    let mut users = MockDashboardUserStore::new();
    users.expect_login_record().return_once(move |_| Ok(record));
    users
}

/// The store reserves the attempt as the `failures`-th failure.
fn reserving(record: LoginRecord, failures: u32) -> MockDashboardUserStore {
    let id = record.user.id;
    let mut users = store_with(Some(record));
    users
        .expect_reserve_login_attempt()
        .withf(move |i, now, policy, until| {
            (*i, *now, policy.max_failures, *until) == (id, at(0), 5, at(900))
        })
        .times(1)
        .returning(move |_, _, _, _| Ok(LoginAttempt::Reserved { failures }));
    users
}

/// Matches `PASSWORD` against the stored hash; `checks` is how many checks of each kind
/// (against the account's hash, against the dummy) are expected.
fn passwords(account: usize, dummy: usize) -> MockPasswordChecker {
    let mut p = MockPasswordChecker::new();
    p.expect_matches()
        .withf(|stored, _| stored.is_some())
        .times(account)
        .returning(|stored, candidate| {
            stored.as_deref() == Some(HASH) && candidate.expose_secret() == PASSWORD
        });
    p.expect_matches()
        .withf(|stored, _| stored.is_none())
        .times(dummy)
        .returning(|_, _| false);
    p
}

fn attempt(
    users: &MockDashboardUserStore,
    checker: &MockPasswordChecker,
    password: &str,
    code: Option<&str>,
) -> Result<SignedIn, SignInError> {
    block_on(sign_in(
        " Ops@Merchant.example",
        &SecretString::from(password.to_owned()),
        code,
        &SignInDeps {
            policy: &SessionPolicy::default(),
            users,
            passwords: checker,
            clock: &clock(at(0)),
        },
    ))
}

#[test]
fn the_right_password_opens_a_session_stored_by_hash() {
    let mut users = reserving(record(UserStatus::Active, None), 3);
    users
        .expect_open_session()
        .withf(|_, _, now| *now == at(0))
        .times(1)
        .returning(|_, _, _| Ok(()));
    let signed = attempt(&users, &passwords(1, 0), PASSWORD, None).expect("signed in");
    assert_eq!(signed.token.len(), 64);
}

#[test]
fn unknown_emails_and_wrong_passwords_look_the_same_and_cost_one_check_each() {
    let users = store_with(None);
    let unknown = attempt(&users, &passwords(0, 1), PASSWORD, None).unwrap_err();
    let users = reserving(record(UserStatus::Active, None), 1);
    let wrong = attempt(&users, &passwords(1, 0), "wrong password!", None).unwrap_err();
    assert_eq!(unknown.to_string(), wrong.to_string());
    assert!(matches!(wrong, SignInError::InvalidCredentials));
}

/// Every refusal without an account's hash (unknown, unparseable, locked) goes to the
/// checker as `None`: the adapter runs it against the dummy hash at the same cost, in a
/// pool of its own, so a flood of them never holds up a real account's check.
#[test]
fn an_email_that_cannot_be_an_account_costs_one_dummy_check_and_no_lookup() {
    let mut users = MockDashboardUserStore::new();
    users.expect_login_record().never();
    let err = block_on(sign_in(
        "not an email",
        &SecretString::from(PASSWORD.to_owned()),
        None,
        &SignInDeps {
            policy: &SessionPolicy::default(),
            users: &users,
            passwords: &passwords(0, 1),
            clock: &clock(at(0)),
        },
    ))
    .unwrap_err();
    assert!(matches!(err, SignInError::InvalidCredentials));
}

#[test]
fn a_locked_account_checks_no_secret_of_its_own_and_refuses_even_the_right_password() {
    let rec = record(UserStatus::Active, None);
    let mut users = store_with(Some(rec));
    users
        .expect_reserve_login_attempt()
        .returning(|_, _, _, _| Ok(LoginAttempt::Locked));
    users.expect_open_session().never();
    // Only the dummy hash is checked: the same cost, never the account's hash.
    let err = attempt(&users, &passwords(0, 1), PASSWORD, None).unwrap_err();
    assert!(
        matches!(err, SignInError::InvalidCredentials),
        "a lock looks like a wrong password"
    );
}

#[test]
fn disabled_and_invited_accounts_cannot_sign_in() {
    for status in [UserStatus::Disabled, UserStatus::Invited] {
        let users = reserving(record(status, None), 1);
        let err = attempt(&users, &passwords(1, 0), PASSWORD, None).unwrap_err();
        assert!(matches!(err, SignInError::InvalidCredentials), "{status:?}");
    }
}

#[test]
fn a_second_factor_needs_a_current_code() {
    let secret = b"12345678901234567890".to_vec();
    let code = format!("{:06}", totp::code_at(&secret, at(0).unix_seconds()));
    // The right password without a code asks for it and gives the attempt back; when
    // that attempt was the fifth, the lock it set is lifted too.
    for (failures, lifts) in [(1, None), (5, Some(at(900)))] {
        let rec = record(UserStatus::Active, Some(secret.clone()));
        let id = rec.user.id;
        let mut users = reserving(rec, failures);
        users
            .expect_release_login_attempt()
            .with(eq(id), eq(lifts))
            .times(1)
            .returning(|_, _| Ok(()));
        let err = attempt(&users, &passwords(1, 0), PASSWORD, None).unwrap_err();
        assert!(matches!(err, SignInError::TotpRequired));
    }
    // A wrong code stays counted (nothing is released).
    let users = reserving(record(UserStatus::Active, Some(secret.clone())), 1);
    let err = attempt(&users, &passwords(1, 0), PASSWORD, Some("000000")).unwrap_err();
    assert!(matches!(err, SignInError::TotpRequired));

    let step = at(0).unix_seconds() / 30;
    let mut users = reserving(record(UserStatus::Active, Some(secret.clone())), 1);
    users
        .expect_use_totp_step()
        .with(always(), eq(step))
        .times(1)
        .returning(|_, _| Ok(true));
    users
        .expect_open_session()
        .times(1)
        .returning(|_, _, _| Ok(()));
    attempt(&users, &passwords(1, 0), PASSWORD, Some(&code)).expect("signed in with the code");

    // The same code again (its step already used) is refused.
    let mut used = record(UserStatus::Active, Some(secret));
    used.totp_last_step = Some(step);
    let mut users = reserving(used, 1);
    users.expect_open_session().times(0);
    let err = attempt(&users, &passwords(1, 0), PASSWORD, Some(&code)).unwrap_err();
    assert!(
        matches!(err, SignInError::TotpRequired),
        "a code is single-use"
    );
}
