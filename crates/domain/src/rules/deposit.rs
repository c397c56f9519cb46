//! Deposit addresses (D24): where a session's buyer may send a plain transfer, and how what
//! arrives there is split. Must match `contracts/src/DepositFactory.sol`.

use crate::model::{Address, ChainId, CheckoutSession};
use crate::rules::eip712::{keccak, session_ref, word_address, word_uint};

/// The terms a deposit address commits to (the factory's salt is their hash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepositTerms {
    /// The session ref, keccak256(session id).
    pub reference: [u8; 32],
    pub token: Address,
    pub recipient: Address,
    /// The session's fee, in token base units: the most the treasury ever takes.
    pub fee_amount: u128,
    pub fee_bps: u16,
}

impl DepositTerms {
    /// A session's terms: its ref, token, recipient and fee snapshot.
    pub fn of_session(session: &CheckoutSession) -> Self {
        Self {
            reference: session_ref(&session.id),
            token: session.token_address,
            recipient: session.recipient_address,
            fee_amount: u128::from(session.fee_micros),
            fee_bps: session.fee_bps,
        }
    }

    /// `DepositFactory.salt`: keccak256(abi.encode(ref, token, recipient, feeAmount, feeBps)).
    pub fn salt(&self) -> [u8; 32] {
        let mut bytes = Vec::with_capacity(5 * 32);
        bytes.extend_from_slice(&self.reference);
        bytes.extend_from_slice(&word_address(&self.token));
        bytes.extend_from_slice(&word_address(&self.recipient));
        bytes.extend_from_slice(&word_uint(self.fee_amount));
        bytes.extend_from_slice(&word_uint(u128::from(self.fee_bps)));
        keccak(&bytes)
    }

    /// The CREATE2 address of these terms' forwarder under `factory`, deployed or not.
    pub fn address(&self, factory: &Address) -> Address {
        let code_hash = keccak(&clone_code(&forwarder_implementation(factory)));
        let mut bytes = Vec::with_capacity(85);
        bytes.push(0xff);
        bytes.extend_from_slice(factory.as_bytes());
        bytes.extend_from_slice(&self.salt());
        bytes.extend_from_slice(&code_hash);
        address_of_hash(&keccak(&bytes))
    }
}

/// The fee of everything a deposit address has received of the session's token:
/// min(fee_amount, floor(received × fee_bps / 10,000)). A sweep takes this total less what
/// earlier sweeps took, so the fee never depends on how the money arrived.
pub fn fee_of_received(received: u128, fee_bps: u16, fee_amount: u128) -> u128 {
    // received × bps cannot overflow u128 for any token supply that fits in 2^112.
    let by_rate = received.saturating_mul(u128::from(fee_bps)) / 10_000;
    by_rate.min(fee_amount)
}

/// The EIP-681 payment request a wallet scans to send `units` base units of `token` to
/// `to` on `chain` with a plain `transfer`:
/// `ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<units>`.
pub fn transfer_request_uri(token: &Address, chain: ChainId, to: &Address, units: u64) -> String {
    format!(
        "ethereum:{token}@{}/transfer?address={to}&uint256={units}",
        chain.id()
    )
}

/// The forwarder implementation the factory deploys in its constructor: the CREATE
/// address of the factory at nonce 1 (a contract's first nonce, EIP-161).
pub fn forwarder_implementation(factory: &Address) -> Address {
    // rlp([factory, 1]) = 0xd6 0x94 <20 bytes> 0x01
    let mut rlp = Vec::with_capacity(23);
    rlp.extend_from_slice(&[0xd6, 0x94]);
    rlp.extend_from_slice(factory.as_bytes());
    rlp.push(0x01);
    address_of_hash(&keccak(&rlp))
}

/// EIP-1167 minimal proxy creation code delegating to `implementation`.
fn clone_code(implementation: &Address) -> Vec<u8> {
    const HEAD: [u8; 20] = [
        0x3d, 0x60, 0x2d, 0x80, 0x60, 0x0a, 0x3d, 0x39, 0x81, 0xf3, 0x36, 0x3d, 0x3d, 0x37, 0x3d,
        0x3d, 0x3d, 0x36, 0x3d, 0x73,
    ];
    const TAIL: [u8; 15] = [
        0x5a, 0xf4, 0x3d, 0x82, 0x80, 0x3e, 0x90, 0x3d, 0x91, 0x60, 0x2b, 0x57, 0xfd, 0x5b, 0xf3,
    ];
    let mut code = Vec::with_capacity(55);
    code.extend_from_slice(&HEAD);
    code.extend_from_slice(implementation.as_bytes());
    code.extend_from_slice(&TAIL);
    code
}

fn address_of_hash(hash: &[u8; 32]) -> Address {
    let mut a = [0u8; 20];
    a.copy_from_slice(&hash[12..]);
    Address::from_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_transfer_request_is_eip_681() {
        let token = Address::parse("0x036CbD53842c5426634e7929541eC2318f3dCF7e").unwrap();
        let to = Address::parse("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").unwrap();
        assert_eq!(
            transfer_request_uri(&token, ChainId::BaseSepolia, &to, 20_000_000),
            "ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer\
             ?address=0x6AC7EA33F8831EA9dcC53393aAA88B25A785DBF0&uint256=20000000"
        );
    }

    #[test]
    fn the_implementation_is_the_factorys_first_create() {
        // The widely published CREATE example (nonce 0 → 0xcd23…cd8d), at nonce 1; checked
        // with js-sha3 independently. The on-chain factory is compared in the contract tests.
        let deployer = Address::parse("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").unwrap();
        assert_eq!(
            forwarder_implementation(&deployer).to_lower_hex(),
            "0x343c43a37d37dff08ae8c4a11544c718abb4fcf8"
        );
    }

    #[test]
    fn the_address_commits_to_every_term() {
        let factory = Address::from_bytes([9; 20]);
        let t = DepositTerms {
            reference: [1; 32],
            token: Address::from_bytes([2; 20]),
            recipient: Address::from_bytes([3; 20]),
            fee_amount: 200_000,
            fee_bps: 100,
        };
        let a = t.address(&factory);
        let changed = [
            DepositTerms {
                reference: [5; 32],
                ..t
            },
            DepositTerms {
                token: Address::from_bytes([4; 20]),
                ..t
            },
            DepositTerms {
                recipient: Address::from_bytes([4; 20]),
                ..t
            },
            DepositTerms {
                fee_amount: 200_001,
                ..t
            },
            DepositTerms { fee_bps: 101, ..t },
        ];
        for other in changed {
            assert_ne!(other.address(&factory), a, "{other:?}");
        }
        assert_ne!(t.address(&Address::from_bytes([8; 20])), a);
    }

    #[test]
    fn the_fee_is_capped_at_the_sessions_fee() {
        assert_eq!(fee_of_received(20_000_000, 100, 200_000), 200_000);
        assert_eq!(fee_of_received(4_000_000, 100, 200_000), 40_000);
        assert_eq!(fee_of_received(25_000_000, 100, 200_000), 200_000);
        assert_eq!(fee_of_received(99, 100, 200_000), 0);
        assert_eq!(fee_of_received(0, 100, 200_000), 0);
    }

    proptest! {
        /// However the money arrives, the sweeps' fees add up to the fee of the total, and
        /// no sweep takes more than it moves.
        #[test]
        fn sweeps_take_the_fee_of_the_total(
            parts in proptest::collection::vec(0u128..50_000_000, 1..6),
            bps in 0u16..=10_000,
            cap in 0u128..5_000_000,
        ) {
            let (mut received, mut taken) = (0u128, 0u128);
            for part in &parts {
                received += part;
                let fee = fee_of_received(received, bps, cap) - taken;
                prop_assert!(fee <= *part);
                taken += fee;
            }
            prop_assert_eq!(taken, fee_of_received(received, bps, cap));
        }
    }
}
