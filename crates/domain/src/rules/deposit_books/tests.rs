use proptest::prelude::*;

use super::*;

const HOUR: i64 = 3600;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_seconds(1_800_000_000 + seconds).unwrap()
}

fn tx(n: u8) -> TxHash {
    TxHash::from_bytes([n; 32])
}

/// 20 USDC at 1 % (fee 0.2), expiring at +1 h.
fn session(completed: bool) -> DepositSession {
    DepositSession {
        gross_micros: 20_000_000,
        minimum_micros: 20_000_000,
        fee_bps: 100,
        fee_micros: 200_000,
        expires_at: at(HOUR),
        completed,
        pending_in_time: false,
    }
}

fn deposit(n: u8, micros: u64, seen: i64) -> ConfirmedDeposit {
    ConfirmedDeposit {
        tx_hash: tx(n),
        amount_micros: micros,
        position: (u64::from(n), 0),
        arrived_at: at(seen),
        recorded: false,
    }
}

#[test]
fn an_exact_transfer_completes_with_one_payment_of_gross() {
    let (received, plan) =
        plan_deposit_payments(&session(false), &[deposit(1, 20_000_000, 0)], at(1));
    assert_eq!(received, 20_000_000);
    assert_eq!(
        plan,
        [PlannedPayment {
            covers: vec![tx(1)],
            shown_as: tx(1),
            amount_micros: 20_000_000,
            overpaid_micros: 0,
            underpaid_micros: 0,
            fee_micros: 200_000,
            completes: true,
        }]
    );
}

#[test]
fn an_underpaid_open_session_waits_and_a_top_up_completes_it_on_the_reaching_transfer() {
    let first = deposit(1, 4_000_000, 0);
    let (received, plan) = plan_deposit_payments(&session(false), &[first], at(1));
    assert_eq!(
        (received, plan.len()),
        (4_000_000, 0),
        "open and underpaid: nothing yet"
    );
    let (received, plan) = plan_deposit_payments(
        &session(false),
        &[first, deposit(2, 16_000_000, 10)],
        at(11),
    );
    assert_eq!(received, 20_000_000);
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].covers, [tx(1), tx(2)]);
    assert_eq!(
        plan[0].shown_as,
        tx(2),
        "the transfer that reached the gross"
    );
    assert!(plan[0].completes);
}

#[test]
fn an_overpayment_is_recorded_on_the_completing_payment_and_the_fee_stays_capped() {
    let (_, plan) = plan_deposit_payments(&session(false), &[deposit(1, 25_000_000, 0)], at(1));
    assert_eq!(plan[0].amount_micros, 20_000_000);
    assert_eq!(plan[0].overpaid_micros, 5_000_000);
    assert_eq!(plan[0].fee_micros, 200_000, "min(fee_amount, 1 % of 25)");
}

#[test]
fn money_after_completion_is_its_own_payment_with_no_further_fee() {
    let mut done = deposit(1, 20_000_000, 0);
    done.recorded = true;
    let (received, plan) =
        plan_deposit_payments(&session(true), &[done, deposit(2, 3_000_000, 50)], at(51));
    assert_eq!(received, 23_000_000);
    assert_eq!(
        plan,
        [PlannedPayment {
            covers: vec![tx(2)],
            shown_as: tx(2),
            amount_micros: 3_000_000,
            overpaid_micros: 0,
            underpaid_micros: 0,
            fee_micros: 0,
            completes: false,
        }]
    );
}

#[test]
fn a_session_a_router_payment_completed_records_deposit_money_as_late_payments() {
    let (_, plan) = plan_deposit_payments(&session(true), &[deposit(1, 20_000_000, 0)], at(1));
    assert_eq!(plan.len(), 1);
    assert!(!plan[0].completes);
    assert_eq!(
        plan[0].fee_micros, 200_000,
        "the forwarder takes its fee all the same"
    );
}

#[test]
fn underpaid_money_is_recorded_once_the_session_expired_and_never_completes_it() {
    let early = deposit(1, 4_000_000, 0);
    let (_, plan) = plan_deposit_payments(&session(false), &[early], at(HOUR));
    assert_eq!(plan.len(), 1);
    assert_eq!(
        (plan[0].amount_micros, plan[0].fee_micros),
        (4_000_000, 40_000)
    );
    assert!(!plan[0].completes);
    // The rest arrives after expiry: a payment of its own, the session stays expired.
    let mut early = early;
    early.recorded = true;
    let (_, plan) = plan_deposit_payments(
        &session(false),
        &[early, deposit(2, 16_000_000, HOUR + 5)],
        at(HOUR + 6),
    );
    assert_eq!(plan.len(), 1);
    assert!(!plan[0].completes);
    assert_eq!(plan[0].fee_micros, 160_000);
}

#[test]
fn a_transfer_seen_before_expiry_but_confirmed_after_still_completes() {
    let (_, plan) = plan_deposit_payments(
        &session(false),
        &[deposit(1, 20_000_000, HOUR - 1)],
        at(HOUR + 3),
    );
    assert!(plan[0].completes);
}

#[test]
fn an_expired_session_waits_for_money_that_arrived_in_time_and_is_still_confirming() {
    let s = DepositSession {
        pending_in_time: true,
        ..session(false)
    };
    let (_, plan) = plan_deposit_payments(&s, &[deposit(1, 10_000_000, HOUR - 5)], at(HOUR + 1));
    assert!(plan.is_empty(), "the second half may still complete it");
    let both = [
        deposit(1, 10_000_000, HOUR - 5),
        deposit(2, 10_000_000, HOUR - 4),
    ];
    let (_, plan) = plan_deposit_payments(&session(false), &both, at(HOUR + 2));
    assert_eq!(plan.len(), 1);
    assert!(plan[0].completes, "both arrived in time: completed");
}

#[test]
fn money_first_seen_after_expiry_does_not_complete() {
    let (_, plan) = plan_deposit_payments(
        &session(false),
        &[deposit(1, 20_000_000, HOUR)],
        at(HOUR + 3),
    );
    assert_eq!(plan.len(), 1);
    assert!(!plan[0].completes);
}

proptest! {
    /// Whatever arrives, whenever: every transfer is recorded at most once, the fees add up
    /// to exactly what the forwarder pays (D24's rule on the recorded total), and every
    /// payment's money adds up to what it covers.
    #[test]
    fn fees_sum_to_the_forwarders_and_nothing_is_recorded_twice(
        amounts in prop::collection::vec((1u64..50_000_000, 0i64..2 * HOUR), 1..8),
        now in 0i64..3 * HOUR,
        completed in any::<bool>(),
    ) {
        let s = session(completed);
        let transfers: Vec<ConfirmedDeposit> = amounts
            .iter()
            .enumerate()
            .map(|(i, (m, seen))| deposit(i as u8 + 1, *m, *seen))
            .collect();
        let (received, plan) = plan_deposit_payments(&s, &transfers, at(now));
        prop_assert_eq!(received, amounts.iter().map(|(m, _)| m).sum::<u64>());
        let mut covered: Vec<TxHash> = plan.iter().flat_map(|p| p.covers.clone()).collect();
        let n = covered.len();
        covered.sort_by_key(|t| *t.as_bytes());
        covered.dedup();
        prop_assert_eq!(covered.len(), n, "a transfer recorded twice");
        let recorded: u64 = transfers
            .iter()
            .filter(|t| covered.contains(&t.tx_hash))
            .map(|t| t.amount_micros)
            .sum();
        let fees: u64 = plan.iter().map(|p| p.fee_micros).sum();
        prop_assert_eq!(
            fees,
            fee_of_received(u128::from(recorded), s.fee_bps, u128::from(s.fee_micros)) as u64
        );
        for p in &plan {
            let money: u64 = transfers
                .iter()
                .filter(|t| p.covers.contains(&t.tx_hash))
                .map(|t| t.amount_micros)
                .sum();
            prop_assert_eq!(p.amount_micros + p.overpaid_micros, money);
        }
        prop_assert!(plan.iter().filter(|p| p.completes).count() <= usize::from(!completed));
        if completed || now >= HOUR {
            prop_assert_eq!(recorded, received, "an ended session records everything");
        }
    }
}

/// 20 USDC tolerating `bps` of shortfall.
fn tolerant(bps: u16) -> DepositSession {
    DepositSession {
        minimum_micros: crate::model::UnderpaymentTolerance::from_bps(bps)
            .unwrap()
            .minimum_of(20_000_000),
        ..session(false)
    }
}

#[test]
fn a_shortfall_within_tolerance_completes_with_what_arrived_and_the_fee_on_it() {
    // 0.3 % short: within 0.5 %, beyond 0.1 %.
    let short = [deposit(1, 19_940_000, 0)];
    let (_, plan) = plan_deposit_payments(&tolerant(50), &short, at(1));
    assert_eq!(
        plan,
        [PlannedPayment {
            covers: vec![tx(1)],
            shown_as: tx(1),
            amount_micros: 19_940_000,
            overpaid_micros: 0,
            underpaid_micros: 60_000,
            fee_micros: 199_400,
            completes: true,
        }]
    );
    let (received, plan) = plan_deposit_payments(&tolerant(10), &short, at(1));
    assert_eq!(
        (received, plan.len()),
        (19_940_000, 0),
        "waits for the rest"
    );
    // Exactly at the edge completes; a micro-unit below does not.
    let edge = [deposit(1, 19_900_000, 0)];
    assert!(plan_deposit_payments(&tolerant(50), &edge, at(1)).1[0].completes);
    let below = [deposit(1, 19_899_999, 0)];
    assert!(plan_deposit_payments(&tolerant(50), &below, at(1))
        .1
        .is_empty());
    // Paying in full under a tolerance is the usual payment: nothing underpaid.
    let (_, plan) = plan_deposit_payments(&tolerant(50), &[deposit(1, 20_000_000, 0)], at(1));
    assert_eq!(
        (plan[0].amount_micros, plan[0].underpaid_micros),
        (20_000_000, 0)
    );
}

#[test]
fn the_tolerance_is_basis_points_of_the_amount_rounded_in_the_merchants_favour() {
    use crate::model::UnderpaymentTolerance;
    assert_eq!(
        UnderpaymentTolerance::NONE.minimum_of(20_000_000),
        20_000_000
    );
    assert_eq!(
        UnderpaymentTolerance::from_bps(1000)
            .unwrap()
            .minimum_of(20_000_000),
        18_000_000
    );
    // floor(199 × 50 / 10,000) = 0 micro-units: nothing tolerated on tiny amounts; and
    // floor(333 × 50 / 10,000) = 1.
    assert_eq!(
        UnderpaymentTolerance::from_bps(50).unwrap().minimum_of(199),
        199
    );
    assert_eq!(
        UnderpaymentTolerance::from_bps(50).unwrap().minimum_of(333),
        332
    );
    assert_eq!(UnderpaymentTolerance::from_bps(1001), None);
    for refused in [
        serde_json::json!(1001),
        serde_json::json!(-1),
        serde_json::json!("50"),
        serde_json::json!(0.5),
    ] {
        assert!(
            UnderpaymentTolerance::from_json(&refused).is_err(),
            "{refused}"
        );
    }
    assert_eq!(
        UnderpaymentTolerance::from_json(&serde_json::json!(50))
            .unwrap()
            .bps(),
        50
    );
}
