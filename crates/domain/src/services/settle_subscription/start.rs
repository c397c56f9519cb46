//! A `Subscribed` with its first `Charged` (D19): the subscription checkout completes and
//! the subscription is created, or, when a sanctions source lists the subscriber whose
//! subscribe already moved the money (D33), the payment is booked held for review, the
//! subscription recorded paused (`payer_sanctioned`) and the session left open.

use super::{charge_payment, draft, legs_present, period_of, succeeded_attempt};
use crate::model::{
    ChainId, CheckoutSession, EventType, Payment, ScreeningPath, SessionMode, Subscription,
    SubscriptionId, SubscriptionStatus,
};
use crate::ports::{
    ChainReceipt, SettlementWrite, SubscriptionEvent, SubscriptionLog, SubscriptionRecord,
    SubscriptionStart,
};
use crate::representation::{CheckoutSessionResource, PaymentResource, SubscriptionResource};
use crate::rules::dunning::FailureCode;
use crate::rules::ledger::MoneyIn;
use crate::services::book_ledger::entries_for_payment;
use crate::services::{
    completed_by, requires_review_event, screen_booked_payer, to_json, Booking, SettleDeps,
    SettleError, SettleOutcome, WRITE_ATTEMPTS,
};

pub(super) async fn start_subscription(
    chain: ChainId,
    receipt: &ChainReceipt,
    log: &SubscriptionLog,
    first_charge: Option<&SubscriptionLog>,
    confirmed: bool,
    deps: &SettleDeps<'_>,
) -> Result<SettleOutcome, SettleError> {
    let SubscriptionEvent::Subscribed {
        subscription_id,
        plan_id,
        subscriber,
        reference,
        fee_amount,
    } = log.event
    else {
        return Ok(SettleOutcome::Rejected("not a Subscribed log".into()));
    };
    let Some(SubscriptionEvent::Charged {
        net_amount,
        fee_amount: charged_fee,
        next_charge_at,
        ..
    }) = first_charge.map(|l| l.event.clone())
    else {
        return Ok(SettleOutcome::Rejected(
            "the subscribe has no first charge".into(),
        ));
    };
    let treasury = deps.contracts(chain)?.treasury;
    for _ in 0..WRITE_ATTEMPTS {
        let Some(session) = deps.store.session_by_ref(reference).await? else {
            return Ok(SettleOutcome::Rejected(
                "no checkout session has this reference".into(),
            ));
        };
        if let Err(why) = check_session(&session, chain, plan_id, fee_amount) {
            return Ok(SettleOutcome::Rejected(why));
        }
        let (Some(interval), true) = (
            session.interval_seconds,
            net_amount == u128::from(session.net_micros) && charged_fee == fee_amount,
        ) else {
            return Ok(SettleOutcome::Rejected(format!(
                "the first charge of {net_amount}/{charged_fee} does not match the session's {}/{}",
                session.net_micros, session.fee_micros
            )));
        };
        if !legs_present(
            receipt,
            session.token_address,
            subscriber,
            session.recipient_address,
            treasury,
            net_amount,
            charged_fee,
        ) {
            return Ok(SettleOutcome::Rejected(
                "the first charge has no matching Transfer legs".into(),
            ));
        }
        if !confirmed {
            return Ok(SettleOutcome::AwaitingDepth);
        }
        let manager = log.manager;
        if let Some(existing) = deps
            .subscriptions
            .subscription_by_chain_id(chain, manager, subscription_id)
            .await?
        {
            return Ok(SettleOutcome::SubscriptionRecorded(
                existing.subscription.id,
            ));
        }
        // The subscribe already moved the money: a listed subscriber is booked held, one
        // no source answered for is settled on a later pass (D33).
        let review = match screen_booked_payer(
            &session,
            subscriber,
            ScreeningPath::Subscribe,
            &deps.screening_deps(),
        )
        .await?
        {
            Booking::Clear => None,
            Booking::Held(review) => Some(review),
            Booking::Deferred => {
                return Ok(SettleOutcome::Deferred(
                    "the subscriber could not be screened yet".into(),
                ))
            }
        };
        let Some((period, next_payment_at)) = period_of(next_charge_at, interval) else {
            return Ok(SettleOutcome::Rejected(
                "the next charge date is out of range".into(),
            ));
        };
        let now = deps.clock.now();
        let customer = deps
            .store
            .customer_for(session.merchant_id, session.mode, subscriber)
            .await?;
        let subscription = Subscription {
            id: SubscriptionId::generate_at(now),
            merchant_id: session.merchant_id,
            mode: session.mode,
            // Held: never charged again, and never resumed by its recipient's wallet.
            status: if review.is_some() {
                SubscriptionStatus::Paused
            } else {
                SubscriptionStatus::Active
            },
            title: session.title.clone(),
            customer,
            wallet_address: subscriber,
            chain,
            chain_subscription_id: subscription_id.to_string(),
            chain_plan_id: plan_id.to_string(),
            amount: session.amount,
            interval_seconds: interval,
            next_payment_at: Some(next_payment_at),
            canceled_at: None,
            retry_count: 0,
            next_retry_at: None,
            last_failure_code: review
                .is_some()
                .then(|| FailureCode::PayerSanctioned.as_str().to_owned()),
            created_at: now,
        };
        let record = SubscriptionRecord {
            subscription: subscription.clone(),
            manager,
            recipient: session.recipient_address,
            token: session.token_address,
            fee_micros: session.fee_micros,
            checkout_session: Some(session.id),
            customer_reference: session.customer_reference.clone(),
            metadata: session.metadata.clone(),
            version: 0,
        };
        let log_index = first_charge.map_or(0, |l| l.log_index);
        let payment = Payment {
            review: review.clone(),
            ..charge_payment(
                &record,
                None,
                receipt,
                log_index,
                period,
                now,
                Some(session.id),
            )
        };
        let attempt = succeeded_attempt(&subscription, &payment, 1, period, receipt, now);
        let (session, events) = if review.is_some() {
            let held = CheckoutSession {
                customer: Some(customer),
                subscription: Some(subscription.id),
                ..session.clone()
            };
            (held, vec![requires_review_event(&payment, now)])
        } else {
            let completed = CheckoutSession {
                subscription: Some(subscription.id),
                ..completed_by(&session, subscriber, receipt.tx_hash, Some(customer), now)
            };
            let events = started_events(&completed, &subscription, &payment, now);
            (completed, events)
        };
        let ledger =
            entries_for_payment(deps.chain, &payment, MoneyIn::SubscriptionCharge, now).await?;
        let start = SubscriptionStart {
            session,
            subscription: record,
            payment: payment.clone(),
            attempt,
            events,
            ledger,
        };
        match deps.subscriptions.record_subscription_start(&start).await? {
            SettlementWrite::Written => return Ok(SettleOutcome::Confirmed(payment.id)),
            SettlementWrite::Stale => continue,
        }
    }
    Err(SettleError::Contended)
}

/// `checkout.session.completed`, `subscription.created` and `payment.succeeded`.
fn started_events(
    completed: &CheckoutSession,
    subscription: &Subscription,
    payment: &Payment,
    now: crate::model::Timestamp,
) -> Vec<crate::ports::EventDraft> {
    vec![
        draft(
            subscription,
            EventType::CheckoutSessionCompleted,
            to_json(&CheckoutSessionResource::new(completed.clone(), "")),
            now,
        ),
        draft(
            subscription,
            EventType::SubscriptionCreated,
            to_json(&SubscriptionResource::from(subscription.clone())),
            now,
        ),
        draft(
            subscription,
            EventType::PaymentSucceeded,
            to_json(&PaymentResource::from(payment.clone())),
            now,
        ),
    ]
}

fn check_session(
    session: &CheckoutSession,
    chain: ChainId,
    plan_id: u128,
    fee: u128,
) -> Result<(), String> {
    if session.session_mode != SessionMode::Subscription {
        return Err("the session is not a subscription checkout".into());
    }
    if session.chain != chain {
        return Err("the session belongs to another chain".into());
    }
    if session.chain_plan_id.as_deref() != Some(plan_id.to_string().as_str()) {
        return Err(format!("plan {plan_id} is not the session's plan"));
    }
    if fee != u128::from(session.fee_micros) {
        return Err(format!(
            "fee {fee} is not the session's {}",
            session.fee_micros
        ));
    }
    Ok(())
}
