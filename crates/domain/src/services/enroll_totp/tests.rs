use futures_executor::block_on;
use mockall::predicate::eq;
use secrecy::ExposeSecret;

use super::*;
use crate::model::{Email, LoginRecord, MerchantId, Timestamp, UserStatus};
use crate::ports::{MockClock, MockDashboardUserStore, MockPasswordChecker};

const PASSWORD: &str = "correct horse battery";
const SECRET: &[u8; 20] = b"12345678901234567890";

fn now() -> Timestamp {
    Timestamp::from_unix_seconds(1_800_000_000).expect("time")
}

fn user(totp: bool) -> DashboardUser {
    DashboardUser {
        id: DashboardUserId::generate(),
        merchant_id: MerchantId::generate(),
        email: Email::parse("ops@merchant.example").expect("email"),
        status: UserStatus::Active,
        totp_enabled: totp,
        created_at: now(),
    }
}

fn store(
    user: &DashboardUser,
    totp: Option<Vec<u8>>,
    last_step: Option<i64>,
) -> MockDashboardUserStore {
    let record = LoginRecord {
        user: user.clone(),
        password_hash: Some("$argon2id$stored".into()),
        totp_secret: totp,
        failed_logins: 0,
        locked_until: None,
        totp_last_step: last_step,
    };
    let mut users = MockDashboardUserStore::new();
    users
        .expect_login_record()
        .returning(move |_| Ok(Some(record.clone())));
    users
}

fn reserve(users: &mut MockDashboardUserStore, outcome: LoginAttempt, released: usize) {
    users
        .expect_reserve_login_attempt()
        .times(1)
        .returning(move |_, _, _, _| Ok(outcome));
    users
        .expect_release_login_attempt()
        .times(released)
        .returning(|_, _| Ok(()));
}

fn passwords(times: usize) -> MockPasswordChecker {
    let mut p = MockPasswordChecker::new();
    p.expect_matches()
        .times(times)
        .returning(|stored, c| stored.is_some() && c.expose_secret() == PASSWORD);
    p
}

fn clock() -> MockClock {
    let mut c = MockClock::new();
    c.expect_now().return_const(now());
    c
}

fn code() -> String {
    format!("{:06}", totp::code_at(SECRET, now().unix_seconds()))
}

fn step() -> i64 {
    now().unix_seconds() / 30
}

fn run_enroll(
    users: &MockDashboardUserStore,
    p: &MockPasswordChecker,
    u: &DashboardUser,
    code: &str,
    password: &str,
) -> Result<(), TotpError> {
    let deps = TotpDeps {
        policy: &SessionPolicy::default(),
        users,
        passwords: p,
        clock: &clock(),
    };
    block_on(enroll_totp(
        u,
        SECRET.to_vec(),
        code,
        &SecretString::from(password.to_owned()),
        "198.51.100.4".parse().ok(),
        &deps,
    ))
}

fn run_remove(
    users: &MockDashboardUserStore,
    u: &DashboardUser,
    code: &str,
) -> Result<(), TotpError> {
    let p = MockPasswordChecker::new();
    let deps = TotpDeps {
        policy: &SessionPolicy::default(),
        users,
        passwords: &p,
        clock: &clock(),
    };
    block_on(remove_totp(u, code, "198.51.100.4".parse().ok(), &deps))
}

#[test]
fn enrolling_needs_the_current_password_and_uses_up_the_codes_step() {
    let u = user(false);
    // A wrong password: counted (not released), nothing stored.
    let mut users = store(&u, None, None);
    reserve(&mut users, LoginAttempt::Reserved { failures: 1 }, 0);
    users.expect_set_totp().never();
    let err = run_enroll(&users, &passwords(1), &u, &code(), "a stolen session").unwrap_err();
    assert!(matches!(err, TotpError::WrongPassword), "{err:?}");

    // A locked account checks nothing.
    let mut users = store(&u, None, None);
    reserve(&mut users, LoginAttempt::Locked, 0);
    users.expect_set_totp().never();
    let err = run_enroll(&users, &passwords(0), &u, &code(), PASSWORD).unwrap_err();
    assert!(matches!(err, TotpError::Locked));

    // A wrong code costs no password check at all.
    let users = store(&u, None, None);
    let err = run_enroll(&users, &passwords(0), &u, "000000", PASSWORD).unwrap_err();
    assert!(matches!(err, TotpError::WrongCode));

    // Both right: stored, the attempt given back, the code's step used.
    let mut users = store(&u, None, None);
    reserve(&mut users, LoginAttempt::Reserved { failures: 2 }, 1);
    let id = u.id;
    users
        .expect_set_totp()
        .withf(move |i, s, e| {
            *i == id
                && s.as_deref() == Some(&SECRET[..])
                && e.action == crate::model::AuditAction::UserTotpEnabled
                && e.actor == crate::model::AuditActor::User(id)
                && e.client_address == "198.51.100.4".parse().ok()
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    users
        .expect_use_totp_step()
        .with(eq(id), eq(step()))
        .times(1)
        .returning(|_, _| Ok(true));
    run_enroll(&users, &passwords(1), &u, &code(), PASSWORD).expect("enrolled");
}

#[test]
fn a_second_secret_cannot_be_enrolled_over_the_first() {
    let u = user(true);
    let users = store(&u, Some(SECRET.to_vec()), None);
    let err = run_enroll(&users, &passwords(0), &u, &code(), PASSWORD).unwrap_err();
    assert!(matches!(err, TotpError::AlreadyEnrolled));
}

#[test]
fn removing_consumes_the_codes_step_and_wrong_codes_count_toward_the_lock() {
    let u = user(true);
    // A wrong code: counted, nothing removed.
    let mut users = store(&u, Some(SECRET.to_vec()), None);
    reserve(&mut users, LoginAttempt::Reserved { failures: 1 }, 0);
    users.expect_set_totp().never();
    assert!(matches!(
        run_remove(&users, &u, "000000"),
        Err(TotpError::WrongCode)
    ));

    // The right code whose step a sign-in used already: refused, still enrolled.
    let mut users = store(&u, Some(SECRET.to_vec()), Some(step()));
    reserve(&mut users, LoginAttempt::Reserved { failures: 1 }, 1);
    users.expect_use_totp_step().returning(|_, _| Ok(false));
    users.expect_set_totp().never();
    assert!(matches!(
        run_remove(&users, &u, &code()),
        Err(TotpError::CodeUsed)
    ));

    // A fresh code: its step is claimed, then the secret removed.
    let mut users = store(&u, Some(SECRET.to_vec()), None);
    reserve(&mut users, LoginAttempt::Reserved { failures: 1 }, 1);
    let mut seq = mockall::Sequence::new();
    users
        .expect_use_totp_step()
        .with(eq(u.id), eq(step()))
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| Ok(true));
    users
        .expect_set_totp()
        .withf(|_, s, e| s.is_none() && e.action == crate::model::AuditAction::UserTotpRemoved)
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _| Ok(()));
    run_remove(&users, &u, &code()).expect("removed");
}
