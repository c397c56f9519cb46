//! The optional second factor (D21): RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits),
//! the defaults every authenticator app uses.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha1::Sha1;

const STEP_SECS: i64 = 30;
const DIGITS: u32 = 6;

/// A fresh 160-bit secret (RFC 4226's recommended length).
pub fn new_secret() -> Vec<u8> {
    let mut s = vec![0u8; 20];
    rand::thread_rng().fill_bytes(&mut s);
    s
}

/// The code for the step that contains `unix_secs`.
pub fn code_at(secret: &[u8], unix_secs: i64) -> u32 {
    hotp(secret, (unix_secs.max(0) / STEP_SECS) as u64, DIGITS)
}

fn hotp(secret: &[u8], counter: u64, digits: u32) -> u32 {
    let Ok(mut mac) = Hmac::<Sha1>::new_from_slice(secret) else {
        return u32::MAX;
    };
    mac.update(&counter.to_be_bytes());
    let h = mac.finalize().into_bytes();
    let offset = usize::from(h[19] & 0x0f);
    let bin = u32::from_be_bytes([
        h[offset] & 0x7f,
        h[offset + 1],
        h[offset + 2],
        h[offset + 3],
    ]);
    bin % 10u32.pow(digits)
}

/// Accepts the current step and one either side (clock drift), as RFC 6238 §5.2 allows.
pub fn verify(secret: &[u8], submitted: &str, unix_secs: i64) -> bool {
    matching_step(secret, submitted, unix_secs).is_some()
}

/// The time step (unix seconds / 30) whose code was submitted, within one step of now.
pub fn matching_step(secret: &[u8], submitted: &str, unix_secs: i64) -> Option<i64> {
    let digits: String = submitted.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() != DIGITS as usize || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let code = digits.parse::<u32>().ok()?;
    [-STEP_SECS, 0, STEP_SECS]
        .iter()
        .map(|d| unix_secs.max(0) + d)
        .find(|t| code_at(secret, *t) == code)
        .map(|t| t / STEP_SECS)
}

/// RFC 4648 base32 without padding: how authenticator apps take a secret.
pub fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &b in bytes {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            out.push(ALPHABET[((buffer >> (bits - 5)) & 31) as usize] as char);
            bits -= 5;
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// The `otpauth://` URI an authenticator app scans.
pub fn provisioning_uri(secret: &[u8], account: &str) -> String {
    let label: String = url::form_urlencoded::byte_serialize(account.as_bytes()).collect();
    format!(
        "otpauth://totp/stablepay:{label}?secret={}&issuer=stablepay&algorithm=SHA1&digits=6&period=30",
        base32(secret)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC_SECRET: &[u8] = b"12345678901234567890";

    #[test]
    fn rfc_6238_sha1_vectors() {
        // RFC 6238 Appendix B (8 digits); the 6-digit code is the same value mod 10^6.
        for (t, eight) in [
            (59, 94_287_082u32),
            (1_111_111_109, 7_081_804),
            (1_111_111_111, 14_050_471),
            (1_234_567_890, 89_005_924),
            (2_000_000_000, 69_279_037),
        ] {
            assert_eq!(hotp(RFC_SECRET, (t / 30) as u64, 8), eight, "t={t}");
            assert_eq!(code_at(RFC_SECRET, t), eight % 1_000_000, "t={t}");
        }
    }

    #[test]
    fn verify_takes_one_step_of_drift_and_nothing_else() {
        let now = 1_800_000_000;
        let code = |t: i64| format!("{:06}", code_at(RFC_SECRET, t));
        assert!(verify(RFC_SECRET, &code(now), now));
        assert!(verify(RFC_SECRET, &code(now - 30), now));
        assert!(!verify(RFC_SECRET, &code(now - 90), now));
        assert!(!verify(RFC_SECRET, "12345", now));
        assert!(!verify(RFC_SECRET, "abcdef", now));
    }

    #[test]
    fn base32_matches_rfc_4648() {
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32(b"f"), "MY");
        assert_eq!(base32(RFC_SECRET), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    }
}
