//! The EVM adapter. It will implement the domain's Chain port with ethers (receipts,
//! logs by range, ERC-20 Transfer decoding, EIP-712 intent signing, ERC-1271 checks).
//! Until the on-chain work lands it only names the chains the service knows.

use stablepay_domain::ChainId;

/// The chains this adapter serves.
pub fn supported_chains() -> [ChainId; 2] {
    ChainId::ALL
}
