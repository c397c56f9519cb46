//! AEAD for webhook signing secrets at rest (XChaCha20-Poly1305, random 24-byte nonce).

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;

pub struct SecretCipher {
    aead: XChaCha20Poly1305,
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
        let aead = XChaCha20Poly1305::new_from_slice(key).map_err(|_| CipherError::BadKey)?;
        Ok(Self { aead })
    }

    /// nonce (24 bytes) || ciphertext.
    pub fn encrypt(&self, plaintext: &str) -> Vec<u8> {
        let mut nonce = [0u8; 24];
        rand::thread_rng().fill_bytes(&mut nonce);
        let mut out = nonce.to_vec();
        // Encryption with a valid key and in-memory buffer cannot fail.
        let sealed = self
            .aead
            .encrypt(&XNonce::from(nonce), plaintext.as_bytes())
            .unwrap_or_default();
        out.extend_from_slice(&sealed);
        out
    }

    pub fn decrypt(&self, sealed: &[u8]) -> Result<String, CipherError> {
        if sealed.len() < 24 {
            return Err(CipherError::Decrypt);
        }
        let (nonce, body) = sealed.split_at(24);
        let nonce: [u8; 24] = nonce.try_into().map_err(|_| CipherError::Decrypt)?;
        let plain = self
            .aead
            .decrypt(&XNonce::from(nonce), body)
            .map_err(|_| CipherError::Decrypt)?;
        String::from_utf8(plain).map_err(|_| CipherError::Decrypt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_detects_the_wrong_key() {
        let c = SecretCipher::new(&[1u8; 32]).unwrap();
        let sealed = c.encrypt("whsec_abc");
        assert_ne!(&sealed[24..], b"whsec_abc");
        assert_eq!(c.decrypt(&sealed).unwrap(), "whsec_abc");
        assert!(SecretCipher::new(&[2u8; 32])
            .unwrap()
            .decrypt(&sealed)
            .is_err());
        assert!(SecretCipher::new(&[1u8; 31]).is_err());
    }
}
