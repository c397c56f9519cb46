//! API key secrets (D5): `svc_sk_{test|live}_` + 32 base62 characters; only the
//! SHA-256 is ever stored.

use sha2::{Digest, Sha256};

use crate::model::{random_base62, Mode};

pub fn prefix(mode: Mode) -> &'static str {
    match mode {
        Mode::Test => "svc_sk_test_",
        Mode::Live => "svc_sk_live_",
    }
}

pub fn generate(mode: Mode) -> String {
    format!("{}{}", prefix(mode), random_base62(32))
}

pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The mode a well-formed key claims, or `None` for anything that cannot be a key
/// (checked before touching storage).
pub fn claimed_mode(secret: &str) -> Option<Mode> {
    let (mode, body) = if let Some(b) = secret.strip_prefix("svc_sk_test_") {
        (Mode::Test, b)
    } else {
        (Mode::Live, secret.strip_prefix("svc_sk_live_")?)
    };
    (body.len() == 32 && body.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(mode)
}

pub fn last4(secret: &str) -> String {
    secret
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_have_the_spec_prefixes() {
        let t = generate(Mode::Test);
        assert!(t.starts_with("svc_sk_test_") && t.len() == 12 + 32);
        assert_eq!(claimed_mode(&t), Some(Mode::Test));
        assert_eq!(claimed_mode(&generate(Mode::Live)), Some(Mode::Live));
        assert_eq!(claimed_mode("svc_sk_test_short"), None);
        assert_eq!(claimed_mode("sk_test_abc"), None);
        assert_eq!(last4("abcdef"), "cdef");
        assert_ne!(hash(&t), hash(&generate(Mode::Test)));
    }
}
