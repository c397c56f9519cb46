use super::*;
use crate::model::fixture::{at, refund_request as request};
use crate::model::Timestamp;
use crate::ports::{MockChainReader, MockClock, MockRefundRequestStore};
use crate::rules::eip191;
use futures_executor::block_on;

const CUSTOMER: [u8; 32] = [0x31; 32];

fn customer() -> Address {
    eip191::address_of_private_key(&CUSTOMER).unwrap()
}

struct Harness {
    requests: MockRefundRequestStore,
    chain: MockChainReader,
    clock: MockClock,
}

impl Harness {
    fn new(stored: RefundRequest, now: Timestamp) -> Self {
        let mut requests = MockRefundRequestStore::new();
        requests
            .expect_request_by_id()
            .returning(move |_| Ok(Some(stored.clone())));
        let mut chain = MockChainReader::new();
        chain.expect_is_contract().returning(|_, _| Ok(false));
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now);
        Self {
            requests,
            chain,
            clock,
        }
    }

    fn run(
        &self,
        id: RefundRequestId,
        address: Address,
        proof: AddressProof,
    ) -> Result<RefundRequest, ConfirmAddressError> {
        let deps = ConfirmAddressDeps {
            requests: &self.requests,
            chain: &self.chain,
            clock: &self.clock,
            public_url: "https://pay.example",
        };
        block_on(confirm_refund_address(
            id,
            address,
            proof,
            "203.0.113.9".parse().ok(),
            &deps,
        ))
    }
}

fn field(err: ConfirmAddressError) -> String {
    match err {
        ConfirmAddressError::Rejected(v) => v.0[0].field.clone(),
        other => panic!("expected a rejection, got {other:?}"),
    }
}

#[test]
fn a_signature_by_the_address_confirms_it_and_tells_the_merchant_in_the_same_write() {
    let stored = request(RefundRequestStatus::AwaitingAddress);
    let id = stored.id;
    let message = confirmation_message(&stored, customer());
    let mut h = Harness::new(stored, at(10));
    h.requests
        .expect_confirm_address()
        .withf(move |r, e| {
            let object: serde_json::Value = serde_json::from_str(&e.object_json).unwrap();
            r.status == RefundRequestStatus::AddressConfirmed
                && r.destination_address == Some(customer())
                && r.confirmation == Some(AddressConfirmation::Signature)
                && r.confirmed_from == "203.0.113.9".parse().ok()
                && r.address_confirmed_at == Some(at(10))
                && e.event_type == EventType::RefundRequestAddressConfirmed
                && object["status"] == "address_confirmed"
                && object["destination_address"] == customer().to_string()
                && object["url"] == format!("https://pay.example/refund/{id}")
        })
        .times(1)
        .returning(|_, _| Ok(true));
    let signature = eip191::sign(message.as_bytes(), &CUSTOMER).unwrap();
    let out = h
        .run(id, customer(), AddressProof::Signature(signature))
        .unwrap();
    assert_eq!(out.destination_address, Some(customer()));
}

#[test]
fn a_signature_by_anyone_else_or_over_other_text_confirms_nothing() {
    let stored = request(RefundRequestStatus::AwaitingAddress);
    let (id, message) = (stored.id, confirmation_message(&stored, customer()));
    let mut h = Harness::new(stored.clone(), at(10));
    h.requests.expect_confirm_address().never();
    let by_other = eip191::sign(message.as_bytes(), &[0x32; 32]).unwrap();
    let err = h
        .run(id, customer(), AddressProof::Signature(by_other))
        .unwrap_err();
    assert_eq!(field(err), "signature");
    // Signed for another address: the text names the address, so it does not carry over.
    let other = Address::from_bytes([0x42; 20]);
    let for_other =
        eip191::sign(confirmation_message(&stored, other).as_bytes(), &CUSTOMER).unwrap();
    let err = h
        .run(id, customer(), AddressProof::Signature(for_other))
        .unwrap_err();
    assert_eq!(field(err), "signature");
}

#[test]
fn typed_twice_confirms_only_the_same_address() {
    let stored = request(RefundRequestStatus::AwaitingAddress);
    let id = stored.id;
    let mut h = Harness::new(stored, at(10));
    h.requests
        .expect_confirm_address()
        .withf(|r, _| r.confirmation == Some(AddressConfirmation::TypedTwice))
        .times(1)
        .returning(|_, _| Ok(true));
    let other = Address::from_bytes([0x42; 20]);
    let err = h
        .run(id, customer(), AddressProof::TypedTwice(other))
        .unwrap_err();
    assert_eq!(field(err), "address_confirmation");
    h.run(id, customer(), AddressProof::TypedTwice(customer()))
        .unwrap();
}

#[test]
fn a_closed_request_or_a_lost_address_takes_nothing() {
    for (stored, now, want) in [
        (
            request(RefundRequestStatus::AwaitingAddress),
            at(100),
            RefundRequestStatus::Expired,
        ),
        (
            request(RefundRequestStatus::AddressConfirmed),
            at(10),
            RefundRequestStatus::AddressConfirmed,
        ),
        (
            request(RefundRequestStatus::Refunded),
            at(10),
            RefundRequestStatus::Refunded,
        ),
    ] {
        let id = stored.id;
        let mut h = Harness::new(stored, now);
        h.requests.expect_confirm_address().never();
        let err = h
            .run(id, customer(), AddressProof::TypedTwice(customer()))
            .unwrap_err();
        assert!(
            matches!(err, ConfirmAddressError::Closed(s) if s == want),
            "{err:?}"
        );
    }
    let stored = request(RefundRequestStatus::AwaitingAddress);
    let (id, token) = (stored.id, stored.token_address);
    let mut h = Harness::new(stored, at(10));
    h.requests.expect_confirm_address().never();
    for lost in [Address::from_bytes([0; 20]), token] {
        let err = h.run(id, lost, AddressProof::TypedTwice(lost)).unwrap_err();
        assert_eq!(field(err), "address");
    }
}

#[test]
fn a_request_confirmed_by_a_concurrent_post_is_closed_not_overwritten() {
    let stored = request(RefundRequestStatus::AwaitingAddress);
    let id = stored.id;
    let mut confirmed = stored.clone();
    confirmed.status = RefundRequestStatus::AddressConfirmed;
    let mut requests = MockRefundRequestStore::new();
    let mut reads = vec![confirmed, stored];
    requests
        .expect_request_by_id()
        .times(2)
        .returning(move |_| Ok(reads.pop()));
    requests
        .expect_confirm_address()
        .returning(|_, _| Ok(false));
    let mut h = Harness::new(request(RefundRequestStatus::AwaitingAddress), at(10));
    h.requests = requests;
    let err = h
        .run(id, customer(), AddressProof::TypedTwice(customer()))
        .unwrap_err();
    assert!(matches!(
        err,
        ConfirmAddressError::Closed(RefundRequestStatus::AddressConfirmed)
    ));
}
