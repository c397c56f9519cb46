//! EIP-191 `personal_sign`: hashing, recovery and (for tools and tests) signing.

use k256::ecdsa::{RecoveryId, Signature as EcdsaSignature, SigningKey, VerifyingKey};
use sha3::{Digest, Keccak256};

use crate::model::{Address, Signature};

/// keccak256("\x19Ethereum Signed Message:\n" + len + message).
pub fn hash_message(message: &[u8]) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    hasher.update(format!("\x19Ethereum Signed Message:\n{}", message.len()).as_bytes());
    hasher.update(message);
    hasher.finalize().into()
}

pub fn address_of(key: &VerifyingKey) -> Address {
    let point = key.to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    let mut bytes = [0u8; 20];
    bytes.copy_from_slice(&hash[12..]);
    Address::from_bytes(bytes)
}

/// The address whose key produced a 65-byte `r || s || v` signature over `message`,
/// or `None` when the signature is not a valid recoverable ECDSA signature.
pub fn recover(message: &[u8], signature: &Signature) -> Option<Address> {
    recover_hash(&hash_message(message), signature)
}

/// The address whose key produced a 65-byte `r || s || v` signature (v = 27/28 or 0/1,
/// low s) over a 32-byte hash (an EIP-712 digest is signed as it is).
pub fn recover_hash(hash: &[u8; 32], signature: &Signature) -> Option<Address> {
    let bytes = signature.as_bytes();
    if bytes.len() != 65 {
        return None;
    }
    let v = match bytes[64] {
        27 | 28 => bytes[64] - 27,
        0 | 1 => bytes[64],
        _ => return None,
    };
    let sig = EcdsaSignature::from_slice(&bytes[..64]).ok()?;
    // Reject high-s malleable signatures, as Ethereum clients do.
    if sig.normalize_s().is_some() {
        return None;
    }
    let recid = RecoveryId::from_byte(v)?;
    let key = VerifyingKey::recover_from_prehash(hash, &sig, recid).ok()?;
    Some(address_of(&key))
}

/// Signs `message` as a wallet's `personal_sign` would (v = 27/28).
pub fn sign(message: &[u8], private_key: &[u8; 32]) -> Option<Signature> {
    sign_hash(&hash_message(message), private_key)
}

/// A low-s `r || s || v` (v = 27/28) signature over a 32-byte hash.
pub fn sign_hash(hash: &[u8; 32], private_key: &[u8; 32]) -> Option<Signature> {
    let key = SigningKey::from_bytes(private_key.into()).ok()?;
    let (sig, recid) = key.sign_prehash_recoverable(hash).ok()?;
    let mut out = sig.to_bytes().to_vec();
    out.push(27 + recid.to_byte());
    Some(Signature::from_bytes(out))
}

/// The address of a raw 32-byte private key.
pub fn address_of_private_key(private_key: &[u8; 32]) -> Option<Address> {
    let key = SigningKey::from_bytes(private_key.into()).ok()?;
    Some(address_of(key.verifying_key()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // anvil's first well-known development account.
    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const ADDR: &str = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

    fn key() -> [u8; 32] {
        let mut k = [0u8; 32];
        hex::decode_to_slice(KEY, &mut k).unwrap();
        k
    }

    #[test]
    fn known_key_has_known_address() {
        assert_eq!(address_of_private_key(&key()).unwrap().to_string(), ADDR);
    }

    #[test]
    fn personal_sign_vector() {
        // Produced independently with Python eth-account: Account.sign_message(encode_defunct(text="hello"), KEY).
        let sig = sign(b"hello", &key()).unwrap();
        assert_eq!(
            sig.to_hex(),
            "0xf16ea9a3478698f695fd1401bfe27e9e4a7e8e3da94aa72b021125e31fa899cc573c48ea3fe1d4ab61a9db10c19032026e3ed2dbccba5a178235ac27f94504311c"
        );
        assert_eq!(recover(b"hello", &sig).unwrap().to_string(), ADDR);
    }

    #[test]
    fn tampering_breaks_recovery() {
        let sig = sign(b"hello", &key()).unwrap();
        assert_ne!(
            recover(b"hellO", &sig).map(|a| a.to_string()).as_deref(),
            Some(ADDR)
        );
        let mut bytes = sig.as_bytes().to_vec();
        bytes[64] = 5;
        assert_eq!(recover(b"hello", &Signature::from_bytes(bytes)), None);
        assert_eq!(recover(b"hello", &Signature::from_bytes(vec![1; 64])), None);
    }
}
