//! Receiver-side verification of stablepay webhooks.
//!
//! Every delivery carries `Svc-Signature: t=<unix seconds>,v1=<hex>` where `v1` is
//! HMAC-SHA256 keyed with the endpoint secret (the whole `whsec_…` string, as UTF-8)
//! over `"<t>.<raw body>"`. During a secret rotation the header carries two `v1` values.
//!
//! A delivery is accepted only when `|now_unix - t| <= tolerance_secs` (computed without
//! overflow for any `i64` values; a negative tolerance accepts nothing).
//!
//! ```
//! use stablepay_webhook_verify::{verify, DEFAULT_TOLERANCE_SECS};
//!
//! // In your HTTP handler: the raw body bytes exactly as received, never re-serialised JSON.
//! fn handle(header: &str, raw_body: &[u8], now_unix: i64) -> u16 {
//!     let secrets = ["whsec_your_endpoint_secret"];
//!     match verify(header, raw_body, &secrets, DEFAULT_TOLERANCE_SECS, now_unix) {
//!         Ok(()) => 200,  // then: check livemode, dedupe by envelope id, ack fast
//!         Err(_) => 400,  // reject unsigned, tampered or stale deliveries
//!     }
//! }
//! # let _ = handle("t=1,v1=00", b"{}", 1);
//! ```

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The spec's default receiver tolerance.
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the Svc-Signature header is malformed")]
    MalformedHeader,
    #[error("the Svc-Signature header has no v1 signature")]
    NoSignature,
    #[error("the timestamp is outside the tolerance")]
    TimestampOutOfTolerance,
    #[error("no v1 signature matches any of the given secrets")]
    SignatureMismatch,
}

/// Verifies a delivery. `secrets` are every secret currently valid for the endpoint.
/// Comparisons are constant-time.
pub fn verify(
    header: &str,
    raw_body: &[u8],
    secrets: &[&str],
    tolerance_secs: i64,
    now_unix: i64,
) -> Result<(), VerifyError> {
    let mut timestamp: Option<i64> = None;
    let mut signatures: Vec<Vec<u8>> = Vec::new();
    for part in header.split(',') {
        let (key, value) = part
            .trim()
            .split_once('=')
            .ok_or(VerifyError::MalformedHeader)?;
        match key {
            "t" => timestamp = Some(value.parse().map_err(|_| VerifyError::MalformedHeader)?),
            "v1" => signatures.push(hex::decode(value).map_err(|_| VerifyError::MalformedHeader)?),
            _ => {} // unknown schemes are ignored so new ones can be added
        }
    }
    let t = timestamp.ok_or(VerifyError::MalformedHeader)?;
    if signatures.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    if !within_tolerance(t, now_unix, tolerance_secs) {
        return Err(VerifyError::TimestampOutOfTolerance);
    }
    for secret in secrets {
        for sig in &signatures {
            let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
                continue;
            };
            mac.update(t.to_string().as_bytes());
            mac.update(b".");
            mac.update(raw_body);
            if mac.verify_slice(sig).is_ok() {
                return Ok(());
            }
        }
    }
    Err(VerifyError::SignatureMismatch)
}

/// `|now_unix - t| <= tolerance_secs`, exact for every `i64` (`t` is attacker-chosen, so
/// no subtraction that can overflow); a negative tolerance accepts nothing.
fn within_tolerance(t: i64, now_unix: i64, tolerance_secs: i64) -> bool {
    u64::try_from(tolerance_secs).is_ok_and(|tolerance| now_unix.abs_diff(t) <= tolerance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stablepay_domain::rules::webhook_signing::signature_header;

    const BODY: &[u8] = br#"{"id":"evt_1"}"#;

    #[test]
    fn shared_vector_with_the_sender() {
        // Same vector as the sender's signing test (computed independently with openssl).
        let header =
            "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925";
        assert_eq!(
            verify(header, BODY, &["whsec_test"], 300, 1_700_000_100),
            Ok(())
        );
        assert_eq!(
            signature_header(&["whsec_test"], 1_700_000_000, BODY),
            header
        );
    }

    #[test]
    fn rejects_tampering_staleness_and_wrong_secrets() {
        let header = signature_header(&["whsec_test"], 1_000, BODY);
        assert_eq!(
            verify(&header, br#"{"id":"evt_2"}"#, &["whsec_test"], 300, 1_000),
            Err(VerifyError::SignatureMismatch)
        );
        assert_eq!(
            verify(&header, BODY, &["whsec_other"], 300, 1_000),
            Err(VerifyError::SignatureMismatch)
        );
        assert_eq!(
            verify(&header, BODY, &["whsec_test"], 300, 1_301),
            Err(VerifyError::TimestampOutOfTolerance)
        );
        assert_eq!(
            verify(&header, BODY, &["whsec_test"], 300, 699),
            Err(VerifyError::TimestampOutOfTolerance)
        );
        assert_eq!(
            verify("v1=00", BODY, &["whsec_test"], 300, 1_000),
            Err(VerifyError::MalformedHeader)
        );
        assert_eq!(
            verify("t=1000", BODY, &["whsec_test"], 300, 1_000),
            Err(VerifyError::NoSignature)
        );
        assert_eq!(
            verify("t=abc,v1=00", BODY, &["whsec_test"], 300, 1_000),
            Err(VerifyError::MalformedHeader)
        );
    }

    #[test]
    fn either_secret_verifies_during_rotation() {
        let header = signature_header(&["whsec_new", "whsec_old"], 1_000, BODY);
        assert_eq!(verify(&header, BODY, &["whsec_old"], 300, 1_000), Ok(()));
        assert_eq!(verify(&header, BODY, &["whsec_new"], 300, 1_000), Ok(()));
    }

    #[test]
    fn extreme_timestamps_neither_panic_nor_pass() {
        let header = signature_header(&["whsec_test"], i64::MIN, BODY);
        for tolerance in [0, 300, i64::MAX] {
            assert_eq!(
                verify(&header, BODY, &["whsec_test"], tolerance, i64::MAX),
                Err(VerifyError::TimestampOutOfTolerance)
            );
        }
        let header = signature_header(&["whsec_test"], i64::MAX, BODY);
        assert_eq!(
            verify(&header, BODY, &["whsec_test"], 300, i64::MIN),
            Err(VerifyError::TimestampOutOfTolerance)
        );
        // i64::MIN and i64::MAX are 2^64 - 1 apart: more than any i64 tolerance.
        assert!(!within_tolerance(i64::MIN, i64::MAX, i64::MAX));
        assert!(within_tolerance(0, i64::MAX, i64::MAX));
        assert!(within_tolerance(-1, i64::MAX - 1, i64::MAX));
        assert!(!within_tolerance(-2, i64::MAX - 1, i64::MAX));
    }

    #[test]
    fn a_negative_tolerance_accepts_nothing() {
        let header = signature_header(&["whsec_test"], 1_000, BODY);
        for tolerance in [-1, i64::MIN] {
            assert_eq!(
                verify(&header, BODY, &["whsec_test"], tolerance, 1_000),
                Err(VerifyError::TimestampOutOfTolerance)
            );
        }
    }

    proptest::proptest! {
        /// For any clock, timestamp and tolerance: no panic, and a correctly signed delivery
        /// is accepted exactly when |now - t| (exact, in i128) <= tolerance.
        #[test]
        fn tolerance_is_exact_for_any_i64(
            t in proptest::prelude::any::<i64>(),
            now in proptest::prelude::any::<i64>(),
            tolerance in proptest::prelude::any::<i64>(),
        ) {
            let header = signature_header(&["whsec_test"], t, BODY);
            let want = (i128::from(now) - i128::from(t)).abs() <= i128::from(tolerance);
            let got = verify(&header, BODY, &["whsec_test"], tolerance, now);
            proptest::prop_assert_eq!(
                got,
                if want { Ok(()) } else { Err(VerifyError::TimestampOutOfTolerance) }
            );
        }

        /// Tolerances right at |now - t| for far-apart clocks (uniform draws rarely accept).
        #[test]
        fn tolerance_is_exact_at_large_distances(
            t in proptest::prelude::any::<i64>(),
            now in proptest::prelude::any::<i64>(),
            offset in -1i128..=1,
        ) {
            let distance = (i128::from(now) - i128::from(t)).abs();
            let tolerance = i64::try_from(distance + offset).unwrap_or(i64::MAX);
            let header = signature_header(&["whsec_test"], t, BODY);
            let want = distance <= i128::from(tolerance);
            let got = verify(&header, BODY, &["whsec_test"], tolerance, now);
            proptest::prop_assert_eq!(
                got,
                if want { Ok(()) } else { Err(VerifyError::TimestampOutOfTolerance) }
            );
        }

        /// Near-boundary cases, which uniform i64 draws almost never hit.
        #[test]
        fn tolerance_is_exact_near_the_boundary(
            t in proptest::prelude::any::<i64>(),
            delta in -3i64..=3,
            tolerance in 0i64..=3,
        ) {
            let now = t.saturating_add(delta);
            let header = signature_header(&["whsec_test"], t, BODY);
            let want = (i128::from(now) - i128::from(t)).abs() <= i128::from(tolerance);
            let got = verify(&header, BODY, &["whsec_test"], tolerance, now);
            proptest::prop_assert_eq!(
                got,
                if want { Ok(()) } else { Err(VerifyError::TimestampOutOfTolerance) }
            );
        }
    }
}
