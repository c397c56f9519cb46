//! Key material (the operator and keeper keys): kept in a `secrecy` box, wiped on drop,
//! never printed.

use std::sync::Arc;

use secrecy::{ExposeSecret, SecretBox};

/// Cheap to clone: clones share one boxed secret.
#[derive(Clone)]
pub struct PrivateKey(Arc<SecretBox<[u8; 32]>>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be a 32-byte hex private key")]
pub struct PrivateKeyError;

impl PrivateKey {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(Arc::new(SecretBox::new(Box::new(bytes))))
    }

    /// `0x`-prefixed or bare hex.
    pub fn parse_hex(s: &str) -> Result<Self, PrivateKeyError> {
        let mut key = SecretBox::new(Box::new([0u8; 32]));
        hex::decode_to_slice(
            s.trim().trim_start_matches("0x"),
            secrecy::ExposeSecretMut::expose_secret_mut(&mut key),
        )
        .map_err(|_| PrivateKeyError)?;
        Ok(Self(Arc::new(key)))
    }

    /// The raw key, for signing only.
    pub fn expose(&self) -> &[u8; 32] {
        self.0.expose_secret()
    }
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivateKey([REDACTED])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hex_and_never_prints_the_key() {
        let k = PrivateKey::parse_hex(&format!("0x{}", "ab".repeat(32))).unwrap();
        assert_eq!(k.expose(), &[0xab; 32]);
        assert!(!format!("{k:?}").contains("ab"));
        assert!(PrivateKey::parse_hex("0x12").is_err());
        assert!(PrivateKey::parse_hex(&"zz".repeat(32)).is_err());
    }
}
