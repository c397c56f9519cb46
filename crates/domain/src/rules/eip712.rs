//! EIP-712 intents the service's operator key signs for the on-chain contracts
//! (DESIGN §4). Must match `contracts/src/{Eip712,CheckoutRouter,SubscriptionManager}.sol`.

use sha3::{Digest, Keccak256};

use crate::model::{Address, CheckoutSessionId, Signature};
use crate::rules::eip191;

pub const ROUTER_NAME: &str = "stablepay CheckoutRouter";
pub const SUBSCRIPTIONS_NAME: &str = "stablepay SubscriptionManager";

pub(crate) fn keccak(bytes: &[u8]) -> [u8; 32] {
    Keccak256::digest(bytes).into()
}

pub(crate) fn word_address(a: &Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_bytes());
    w
}

pub(crate) fn word_uint(n: u128) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[16..].copy_from_slice(&n.to_be_bytes());
    w
}

fn encode(words: &[[u8; 32]]) -> Vec<u8> {
    words.iter().flatten().copied().collect()
}

/// The contract a signature is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Domain {
    pub name: &'static str,
    pub chain_id: u64,
    pub verifying_contract: Address,
}

impl Domain {
    pub fn separator(&self) -> [u8; 32] {
        let typehash = keccak(
            b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
        );
        keccak(&encode(&[
            typehash,
            keccak(self.name.as_bytes()),
            keccak(b"1"),
            word_uint(u128::from(self.chain_id)),
            word_address(&self.verifying_contract),
        ]))
    }

    pub fn digest(&self, struct_hash: [u8; 32]) -> [u8; 32] {
        let mut bytes = Vec::with_capacity(66);
        bytes.extend_from_slice(b"\x19\x01");
        bytes.extend_from_slice(&self.separator());
        bytes.extend_from_slice(&struct_hash);
        keccak(&bytes)
    }
}

/// The single-use on-chain reference of a checkout session: keccak256(session id).
pub fn session_ref(id: &CheckoutSessionId) -> [u8; 32] {
    keccak(id.to_string().as_bytes())
}

/// `CheckoutRouter.Cancel(bytes32 ref)`: what the operator signs so that anyone (the
/// relayer filling the nonce of an unwanted router relay, D30) can spend a session's ref,
/// after which no router path pays it and a relay's calldata can never be replayed.
pub fn cancel_struct_hash(reference: &[u8; 32]) -> [u8; 32] {
    let typehash = keccak(b"Cancel(bytes32 ref)");
    keccak(&encode(&[typehash, *reference]))
}

/// `CheckoutRouter.Intent`; amounts in token base units (micro-units for every token).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaymentIntent {
    pub reference: [u8; 32],
    pub token: Address,
    pub recipient: Address,
    pub net_amount: u128,
    pub fee_amount: u128,
    pub deadline: u64,
}

impl PaymentIntent {
    pub fn struct_hash(&self) -> [u8; 32] {
        let typehash = keccak(
            b"Intent(bytes32 ref,address token,address recipient,uint256 netAmount,uint256 feeAmount,uint64 deadline)",
        );
        keccak(&encode(&self.words(typehash)))
    }

    /// `CheckoutRouter.PayerIntent`: this intent bound to one payer, which the operator
    /// signs for `payWithAuthorization` only when the relayer sends that payer's
    /// authorization (so another wallet cannot pay the session with it).
    pub fn payer_struct_hash(&self, payer: &Address) -> [u8; 32] {
        let typehash = keccak(
            b"PayerIntent(bytes32 ref,address token,address recipient,uint256 netAmount,uint256 feeAmount,uint64 deadline,address payer)",
        );
        let mut words = self.words(typehash).to_vec();
        words.push(word_address(payer));
        keccak(&encode(&words))
    }

    /// The type hash and the intent's fields, ABI-encoded in the order both types share.
    fn words(&self, typehash: [u8; 32]) -> [[u8; 32]; 7] {
        [
            typehash,
            self.reference,
            word_address(&self.token),
            word_address(&self.recipient),
            word_uint(self.net_amount),
            word_uint(self.fee_amount),
            word_uint(u128::from(self.deadline)),
        ]
    }
}

/// `SubscriptionManager.subscribe` authorisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscribeIntent {
    pub plan_id: u128,
    pub reference: [u8; 32],
    pub fee_amount: u128,
    pub deadline: u64,
}

impl SubscribeIntent {
    pub fn struct_hash(&self) -> [u8; 32] {
        let typehash =
            keccak(b"Subscribe(uint256 planId,bytes32 ref,uint256 feeAmount,uint64 deadline)");
        keccak(&encode(&[
            typehash,
            word_uint(self.plan_id),
            self.reference,
            word_uint(self.fee_amount),
            word_uint(u128::from(self.deadline)),
        ]))
    }
}

/// Signs an EIP-712 digest with the operator key (65 bytes, v = 27/28, low s).
pub fn sign(domain: &Domain, struct_hash: [u8; 32], operator_key: &[u8; 32]) -> Option<Signature> {
    eip191::sign_hash(&domain.digest(struct_hash), operator_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_separator_changes_with_chain_and_contract() {
        let a = Domain {
            name: ROUTER_NAME,
            chain_id: 8453,
            verifying_contract: Address::from_bytes([1; 20]),
        };
        let b = Domain {
            chain_id: 84532,
            ..a
        };
        let c = Domain {
            verifying_contract: Address::from_bytes([2; 20]),
            ..a
        };
        assert_ne!(a.separator(), b.separator());
        assert_ne!(a.separator(), c.separator());
    }

    #[test]
    fn signatures_recover_to_the_operator() {
        let key = [7u8; 32];
        let domain = Domain {
            name: ROUTER_NAME,
            chain_id: 84532,
            verifying_contract: Address::from_bytes([1; 20]),
        };
        let intent = PaymentIntent {
            reference: session_ref(&CheckoutSessionId::generate()),
            token: Address::from_bytes([3; 20]),
            recipient: Address::from_bytes([4; 20]),
            net_amount: 9_900_000,
            fee_amount: 100_000,
            deadline: 1_900_000_000,
        };
        let sig = sign(&domain, intent.struct_hash(), &key).unwrap();
        assert_eq!(sig.as_bytes().len(), 65);
        let digest = domain.digest(intent.struct_hash());
        // Recover through the raw hash path: EIP-712 digests are signed as-is.
        let recovered = {
            use k256::ecdsa::{RecoveryId, Signature as S, VerifyingKey};
            let b = sig.as_bytes();
            let s = S::from_slice(&b[..64]).unwrap();
            let key = VerifyingKey::recover_from_prehash(
                &digest,
                &s,
                RecoveryId::from_byte(b[64] - 27).unwrap(),
            )
            .unwrap();
            eip191::address_of(&key)
        };
        assert_eq!(Some(recovered), eip191::address_of_private_key(&key));
    }
}
