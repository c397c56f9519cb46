//! The secrets keys (AEAD for webhook signing secrets and TOTP seeds at rest): decoded
//! here once, for both binaries, and never printable.

use base64::Engine;
use secrecy::{ExposeSecret, SecretBox};

use crate::env::{optional, ConfigError};

/// `STABLEPAY_SECRETS_KEY` and, during a rotation, `STABLEPAY_SECRETS_KEY_PREVIOUS`.
pub struct SecretsKeys {
    current: SecretBox<[u8; 32]>,
    previous: Option<SecretBox<[u8; 32]>>,
}

impl std::fmt::Debug for SecretsKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretsKeys")
            .field("current", &"[redacted]")
            .field("previous", &self.previous.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

impl SecretsKeys {
    pub fn from_env() -> Result<Self, ConfigError> {
        const CURRENT: &str = "STABLEPAY_SECRETS_KEY";
        const PREVIOUS: &str = "STABLEPAY_SECRETS_KEY_PREVIOUS";
        let current = optional(CURRENT).ok_or_else(|| {
            ConfigError::new(
                CURRENT,
                "is not set (32 random bytes, base64; `openssl rand -base64 32`; the api and the worker share it)",
            )
        })?;
        Ok(Self {
            current: decode(CURRENT, &current)?,
            previous: optional(PREVIOUS)
                .map(|raw| decode(PREVIOUS, &raw))
                .transpose()?,
        })
    }

    pub fn current(&self) -> &[u8; 32] {
        self.current.expose_secret()
    }

    /// The key being rotated out: it still opens its rows until they are re-sealed.
    pub fn previous(&self) -> Option<&[u8; 32]> {
        self.previous.as_ref().map(|k| k.expose_secret())
    }
}

fn decode(name: &str, raw: &str) -> Result<SecretBox<[u8; 32]>, ConfigError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw.trim())
        .map_err(|_| ConfigError::new(name, "is not valid base64"))?;
    let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
        ConfigError::new(
            name,
            format!("must decode to 32 bytes, got {}", bytes.len()),
        )
    })?;
    Ok(SecretBox::new(Box::new(key)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_decode_once_and_never_print() {
        let raw = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let key = decode("K", &raw).unwrap();
        assert_eq!(key.expose_secret(), &[7u8; 32]);
        let keys = SecretsKeys {
            current: key,
            previous: None,
        };
        assert!(!format!("{keys:?}").contains('7'));
        let short = base64::engine::general_purpose::STANDARD.encode([7u8; 16]);
        assert!(decode("K", &short)
            .unwrap_err()
            .problem
            .contains("32 bytes"));
        assert!(decode("K", "not base64!").is_err());
    }
}
