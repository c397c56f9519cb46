//! AEAD for secrets at rest (webhook signing secrets, TOTP seeds): XChaCha20-Poly1305 with
//! a random 24-byte nonce.
//!
//! Sealed format v1: `0x01 || key id (8) || nonce (24) || ciphertext`. The key id names the
//! key that sealed it (so a previous key can still open it during a rotation), and the
//! associated data binds it to its row (`webhook_endpoint:<uuid>`): a ciphertext copied onto
//! another row does not open. Rows sealed before v1 (`nonce || ciphertext`, no associated
//! data) still open, and re-sealing rewrites them (and rows under the previous key) as v1
//! under the current key.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;
use secrecy::{ExposeSecret, SecretBox};
use sha2::{Digest, Sha256};

const V1: u8 = 1;
const KEY_ID_LEN: usize = 8;
const NONCE_LEN: usize = 24;
/// Version byte and key id: what the current key's rows start with.
pub const PREFIX_LEN: usize = 1 + KEY_ID_LEN;

struct Key {
    id: [u8; KEY_ID_LEN],
    aead: XChaCha20Poly1305,
}

impl Key {
    fn new(raw: &[u8]) -> Result<Self, CipherError> {
        let raw = SecretBox::new(Box::new(raw.to_vec()));
        let aead = XChaCha20Poly1305::new_from_slice(raw.expose_secret())
            .map_err(|_| CipherError::BadKey)?;
        // The id reveals nothing usable about the key: a domain-separated hash prefix.
        let digest = Sha256::new()
            .chain_update(b"stablepay secrets key id v1\0")
            .chain_update(raw.expose_secret())
            .finalize();
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        Ok(Self { id, aead })
    }

    fn open(&self, nonce: &[u8], body: &[u8], aad: &[u8]) -> Option<Vec<u8>> {
        let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
        self.aead
            .decrypt(&XNonce::from(nonce), Payload { msg: body, aad })
            .ok()
    }
}

pub struct SecretCipher {
    current: Key,
    previous: Option<Key>,
}

#[derive(Debug, thiserror::Error)]
pub enum CipherError {
    #[error("STABLEPAY_SECRETS_KEY must be 32 bytes")]
    BadKey,
    #[error("a stored secret could not be decrypted (wrong STABLEPAY_SECRETS_KEY?)")]
    Decrypt,
}

impl SecretCipher {
    pub fn new(key: &[u8]) -> Result<Self, CipherError> {
        Ok(Self {
            current: Key::new(key)?,
            previous: None,
        })
    }

    /// The cipher for a process's configured keys (current, and previous while rotating).
    pub fn from_keys(keys: &stablepay_config::SecretsKeys) -> Result<Self, CipherError> {
        let cipher = Self::new(keys.current())?;
        match keys.previous() {
            Some(previous) => cipher.with_previous(previous),
            None => Ok(cipher),
        }
    }

    /// Also opens what `previous` sealed (`STABLEPAY_SECRETS_KEY_PREVIOUS`, during a
    /// rotation); everything new is sealed with the current key.
    pub fn with_previous(mut self, previous: &[u8]) -> Result<Self, CipherError> {
        self.previous = Some(Key::new(previous)?);
        Ok(self)
    }

    /// Seals `plaintext` bound to `aad` (the row it belongs to), in format v1.
    pub fn encrypt(&self, plaintext: &str, aad: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::thread_rng().fill_bytes(&mut nonce);
        let mut out = self.current_prefix();
        out.extend_from_slice(&nonce);
        // Encryption with a valid key and in-memory buffer cannot fail.
        let sealed = self
            .current
            .aead
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad,
                },
            )
            .unwrap_or_default();
        out.extend_from_slice(&sealed);
        out
    }

    /// Opens a v1 ciphertext with the key its id names, or a pre-v1 one with either key.
    pub fn decrypt(&self, sealed: &[u8], aad: &[u8]) -> Result<String, CipherError> {
        let keys = || std::iter::once(&self.current).chain(self.previous.as_ref());
        let v1 = (sealed.len() > PREFIX_LEN + NONCE_LEN && sealed[0] == V1)
            .then(|| {
                let key = keys().find(|k| sealed[1..PREFIX_LEN] == k.id)?;
                let (nonce, body) = sealed[PREFIX_LEN..].split_at(NONCE_LEN);
                key.open(nonce, body, aad)
            })
            .flatten();
        let plain = match v1 {
            Some(plain) => plain,
            // Pre-v1 (no associated data); a legacy nonce may start with 0x01 by chance.
            None if sealed.len() > NONCE_LEN => {
                let (nonce, body) = sealed.split_at(NONCE_LEN);
                keys()
                    .find_map(|k| k.open(nonce, body, b""))
                    .ok_or(CipherError::Decrypt)?
            }
            None => return Err(CipherError::Decrypt),
        };
        String::from_utf8(plain).map_err(|_| CipherError::Decrypt)
    }

    /// What every ciphertext sealed by the current key starts with.
    pub fn current_prefix(&self) -> Vec<u8> {
        let mut prefix = vec![V1];
        prefix.extend_from_slice(&self.current.id);
        prefix
    }

    /// Whether `sealed` is v1 under the current key (nothing to re-seal).
    pub fn is_current(&self, sealed: &[u8]) -> bool {
        sealed.len() > PREFIX_LEN && sealed[..PREFIX_LEN] == self.current_prefix()[..]
    }
}

/// The associated data that binds a webhook endpoint's secrets to the endpoint.
pub fn endpoint_aad(endpoint: uuid::Uuid) -> Vec<u8> {
    [b"webhook_endpoint:".as_slice(), endpoint.as_bytes()].concat()
}

/// The associated data that binds a dashboard user's TOTP seed to the user.
pub fn totp_aad(user: uuid::Uuid) -> Vec<u8> {
    [b"dashboard_user_totp:".as_slice(), user.as_bytes()].concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha20poly1305::aead::Aead;

    fn legacy(key: &[u8; 32], plaintext: &str) -> Vec<u8> {
        let aead = XChaCha20Poly1305::new_from_slice(key).unwrap();
        let nonce = [V1; NONCE_LEN]; // starts with 0x01, like a v1 ciphertext
        let mut out = nonce.to_vec();
        out.extend(
            aead.encrypt(&XNonce::from(nonce), plaintext.as_bytes())
                .unwrap(),
        );
        out
    }

    #[test]
    fn round_trips_bound_to_its_row_and_detects_the_wrong_key() {
        let c = SecretCipher::new(&[1u8; 32]).unwrap();
        let sealed = c.encrypt("whsec_abc", b"row-1");
        assert!(c.is_current(&sealed));
        assert!(!sealed.windows(9).any(|w| w == b"whsec_abc"));
        assert_eq!(c.decrypt(&sealed, b"row-1").unwrap(), "whsec_abc");
        assert!(
            c.decrypt(&sealed, b"row-2").is_err(),
            "moved to another row"
        );
        assert!(SecretCipher::new(&[2u8; 32])
            .unwrap()
            .decrypt(&sealed, b"row-1")
            .is_err());
        assert!(SecretCipher::new(&[1u8; 31]).is_err());
        assert!(c.decrypt(&sealed[..20], b"row-1").is_err());
    }

    #[test]
    fn the_previous_key_opens_its_rows_during_a_rotation() {
        let old = SecretCipher::new(&[1u8; 32]).unwrap();
        let sealed = old.encrypt("whsec_old", b"row");
        let rotated = SecretCipher::new(&[2u8; 32])
            .unwrap()
            .with_previous(&[1u8; 32])
            .unwrap();
        assert_eq!(rotated.decrypt(&sealed, b"row").unwrap(), "whsec_old");
        assert!(!rotated.is_current(&sealed));
        let resealed = rotated.encrypt("whsec_old", b"row");
        assert!(rotated.is_current(&resealed));
        assert_ne!(
            rotated.current_prefix(),
            old.current_prefix(),
            "key ids differ"
        );
        // After the rotation the previous key is dropped: only re-sealed rows open.
        let after = SecretCipher::new(&[2u8; 32]).unwrap();
        assert!(after.decrypt(&sealed, b"row").is_err());
        assert_eq!(after.decrypt(&resealed, b"row").unwrap(), "whsec_old");
    }

    #[test]
    fn pre_v1_rows_still_open_with_either_key() {
        let sealed = legacy(&[1u8; 32], "whsec_legacy");
        let c = SecretCipher::new(&[1u8; 32]).unwrap();
        assert!(!c.is_current(&sealed));
        assert_eq!(c.decrypt(&sealed, b"any").unwrap(), "whsec_legacy");
        let rotated = SecretCipher::new(&[3u8; 32])
            .unwrap()
            .with_previous(&[1u8; 32])
            .unwrap();
        assert_eq!(rotated.decrypt(&sealed, b"any").unwrap(), "whsec_legacy");
        assert!(SecretCipher::new(&[3u8; 32])
            .unwrap()
            .decrypt(&sealed, b"any")
            .is_err());
    }

    #[test]
    fn aad_helpers_differ_per_row_and_purpose() {
        let id = uuid::Uuid::nil();
        assert_ne!(endpoint_aad(id), totp_aad(id));
        assert_ne!(endpoint_aad(id), endpoint_aad(uuid::Uuid::max()));
    }
}
