//! Refund requests (D32): the text a customer signs to confirm a refund address, and what
//! counts as a confirmation.

use crate::model::{Address, RefundRequest};

/// The text the customer's page shows and a wallet signs (EIP-191): it names the request,
/// the money, the network and the address, so a signature confirms exactly this refund
/// to exactly this address.
pub fn confirmation_message(request: &RefundRequest, address: Address) -> String {
    format!(
        "stablepay refund address\n\nSend the refund of {} {} on {} (chain ID {}) for refund request {} to this address, which I control:\n{}",
        request.amount,
        request.currency,
        request.chain.name(),
        request.chain.id(),
        request.id,
        address,
    )
}

/// Why an address cannot receive a refund, whoever confirms it: the zero address burns
/// the money, and the token's own contract keeps it.
pub fn unusable_destination(request: &RefundRequest, address: Address) -> Option<&'static str> {
    if address == Address::from_bytes([0; 20]) {
        Some("is the zero address: tokens sent there are gone")
    } else if address == request.token_address {
        Some("is the token's own contract: tokens sent there cannot be got back")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture::refund_request;
    use crate::model::{Amount, RefundRequestStatus};

    fn request() -> RefundRequest {
        RefundRequest {
            amount: Amount::parse("12.5").unwrap(),
            ..refund_request(RefundRequestStatus::AwaitingAddress)
        }
    }

    #[test]
    fn the_message_names_the_money_the_network_the_request_and_the_address() {
        let r = request();
        let to = Address::from_bytes([0x42; 20]);
        let text = confirmation_message(&r, to);
        for part in [
            "12.5 USDC".to_owned(),
            "chain ID 8453".to_owned(),
            r.id.to_string(),
            to.to_string(),
        ] {
            assert!(text.contains(&part), "{part} in {text}");
        }
        assert_ne!(
            text,
            confirmation_message(&r, Address::from_bytes([0x43; 20]))
        );
    }

    #[test]
    fn money_is_never_sent_where_it_is_lost() {
        let r = request();
        assert!(unusable_destination(&r, Address::from_bytes([0; 20])).is_some());
        assert!(unusable_destination(&r, r.token_address).is_some());
        assert!(unusable_destination(&r, Address::from_bytes([0x42; 20])).is_none());
    }
}
