//! Synthetic `data.object`s for test events: production-shaped, with consistent fee
//! arithmetic and the endpoint's livemode, and ids (`cs_test_…`) that never parse, so a
//! lookup through the API is always a 404.

use rand::Rng;
use serde_json::{json, Value};

use crate::model::{base62_encode, render_micros, Amount, EventType, Timestamp};
use crate::rules::fees;

/// `prefix_test_` + 22 base62 characters: the extra `_test_` makes it unparseable.
fn synthetic_id(prefix: &str) -> String {
    format!(
        "{prefix}_test_{}",
        base62_encode(rand::thread_rng().gen::<u128>())
    )
}

const TEST_WALLET: &str = "0x000000000000000000000000000000000000dEaD";
const TEST_PAYER: &str = "0x0000000000000000000000000000000000000B0b";
const TEST_TX: &str = "0x7e57000000000000000000000000000000000000000000000000000000007e57";

/// Builds the synthetic object for `event_type`.
pub fn synthetic_object(event_type: EventType, livemode: bool, now: Timestamp) -> Value {
    let chain_id = if livemode { 8453 } else { 84532 };
    let token = if livemode {
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    } else {
        "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
    };
    let amount = Amount::from_micros(25_000_000)
        .unwrap_or_else(|_| unreachable!("25 USDC is a valid amount"));
    let split = fees::split(amount, 100);
    let (fee, net) = (
        render_micros(split.fee_micros),
        render_micros(split.net_micros),
    );
    let (session, payment, customer, subscription) = (
        synthetic_id("cs"),
        synthetic_id("pay"),
        synthetic_id("cus"),
        synthetic_id("sub"),
    );
    let recurring = matches!(event_type, EventType::PaymentFailed);
    let created = now.to_string();
    let payment_object = |status: &str, refunded: &str| {
        json!({
            "id": payment, "object": "payment", "livemode": livemode, "status": status,
            "charge_type": if recurring { "recurring" } else { "one_time" },
            "subscription": if recurring { Value::from(subscription.clone()) } else { Value::Null },
            "customer": customer, "checkout_session": if recurring { Value::Null } else { Value::from(session.clone()) },
            "customer_reference": "test_customer", "amount": amount.to_string(), "currency": "USDC",
            "fee_amount": fee, "merchant_amount": net, "refunded_amount": refunded, "overpaid_amount": "0", "underpaid_amount": null,
            "wallet_address": TEST_PAYER, "chain_id": chain_id, "token_address": token,
            "tx_hash": TEST_TX, "log_index": 0, "block_number": "1", "review": null, "metadata": {}, "created_at": created,
        })
    };
    let subscription_object = |status: &str, canceled: bool, retries: u32| {
        json!({
            "id": subscription, "object": "subscription", "livemode": livemode, "status": status,
            "title": "Test plan", "customer": customer, "wallet_address": TEST_PAYER, "chain_id": chain_id,
            "chain_subscription_id": "1", "chain_plan_id": "1", "amount": amount.to_string(),
            "interval_seconds": 2_592_000, "next_payment_at": if canceled { Value::Null } else { Value::from(now.plus_seconds(86_400).to_string()) },
            "canceled_at": if canceled { Value::from(created.clone()) } else { Value::Null },
            "retry_count": retries, "next_retry_at": if status == "past_due" { Value::from(now.plus_seconds(86_400).to_string()) } else { Value::Null },
            "last_failure_code": if retries > 0 { Value::from("insufficient_allowance") } else { Value::Null },
            "created_at": created,
        })
    };
    match event_type {
        EventType::CheckoutSessionCompleted => json!({
            "id": session, "object": "checkout.session", "livemode": livemode, "url": null, "x402_url": null, "mode": "payment",
            "status": "completed", "title": "Test checkout", "description": null, "amount": amount.to_string(),
            "currency": "USDC", "fee_bps": 100, "fee_amount": fee, "merchant_net_amount": net, "fee_tier": "standard",
            "chain_id": chain_id, "token_address": token, "interval_seconds": null, "chain_plan_id": null,
            "recipient_address": TEST_WALLET, "customer": customer, "subscription": null,
            "customer_reference": "test_customer", "success_url": null, "cancel_url": null,
            "wallet_address": TEST_PAYER, "tx_hash": TEST_TX, "metadata": {},
            "expires_at": now.plus_seconds(86_400).to_string(), "completed_at": created, "created_at": created,
            "deposit_address": null, "amount_received": "0",
            "underpayment_tolerance_bps": 0, "underpaid_amount": null,
            "price": null, "quote": null, "payment_link": null, "requoted_from": null,
        }),
        EventType::PaymentSucceeded => payment_object("confirmed", "0"),
        EventType::PaymentRequiresReview => {
            let mut held = payment_object("confirmed", "0");
            held["review"] = json!({
                "status": "pending", "reason": "the payer is on the sanctions list sanctions_oracle",
                "source": "sanctions_oracle", "decided_at": null,
            });
            held
        }
        EventType::PaymentFailed => payment_object("failed", "0"),
        EventType::PaymentRefunded => payment_object("refunded", &amount.to_string()),
        EventType::SubscriptionCreated => subscription_object("active", false, 0),
        EventType::SubscriptionPastDue => subscription_object("past_due", false, 1),
        EventType::SubscriptionExpired => subscription_object("expired", false, 3),
        EventType::SubscriptionCanceled => subscription_object("canceled", true, 0),
        EventType::RefundRequestAddressConfirmed => {
            let request = synthetic_id("rr");
            json!({
                "id": request, "object": "refund_request", "livemode": livemode,
                "status": "address_confirmed", "payment": payment, "amount": amount.to_string(),
                "currency": "USDC", "chain_id": chain_id, "reason": null,
                "url": format!("https://pay.example/refund/{request}"),
                "destination_address": TEST_PAYER, "confirmation": "signature",
                "address_confirmed_at": created, "refund": null, "refunded_at": null,
                "expires_at": now.plus_seconds(14 * 86_400).to_string(), "created_at": created,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CheckoutSessionId, PaymentId};
    use chrono::{TimeZone, Utc};

    #[test]
    fn objects_are_consistent_and_their_ids_never_resolve() {
        let now = Timestamp::new(Utc.timestamp_opt(1_700_000_000, 0).unwrap());
        for t in EventType::ALL {
            for live in [false, true] {
                let o = synthetic_object(t, live, now);
                assert_eq!(o["livemode"], live, "{t}");
                let id = o["id"].as_str().unwrap();
                assert!(id.contains("_test_"), "{id}");
                assert!(CheckoutSessionId::parse(id).is_err() && PaymentId::parse(id).is_err());
            }
        }
        let p = synthetic_object(EventType::PaymentSucceeded, false, now);
        let parse = |k: &str| {
            Amount::parse(p[k].as_str().unwrap())
                .map(|a| a.micros())
                .unwrap_or(0)
        };
        assert_eq!(
            parse("fee_amount") + parse("merchant_amount"),
            parse("amount")
        );
        assert_eq!(p["chain_id"], 84532);
    }
}
