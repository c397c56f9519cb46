//! Subscription billing rules (D10, D19): failure codes, the dunning schedule and the
//! status transitions a charge outcome, a revoked recipient or a cancel cause, with the
//! events each transition fires. Pure: the billing use cases decide with these and write
//! the result in one transaction.

use crate::model::{parse_duration, EventType, Subscription, SubscriptionStatus, Timestamp};

/// Why a recurring charge was not taken (the contract's custom error, or no chain).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureCode {
    InsufficientAllowance,
    InsufficientBalance,
    SubscriptionInactive,
    /// Nothing could be tried (the node failed or timed out): not a retry.
    ChainUnavailable,
    /// A sanctions source lists the subscriber (D33): paused, never charged.
    PayerSanctioned,
}

impl FailureCode {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCode::InsufficientAllowance => "insufficient_allowance",
            FailureCode::InsufficientBalance => "insufficient_balance",
            FailureCode::SubscriptionInactive => "subscription_inactive",
            FailureCode::ChainUnavailable => "chain_unavailable",
            FailureCode::PayerSanctioned => "payer_sanctioned",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            FailureCode::InsufficientAllowance,
            FailureCode::InsufficientBalance,
            FailureCode::SubscriptionInactive,
            FailureCode::ChainUnavailable,
            FailureCode::PayerSanctioned,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }

    /// The human-readable `failure_reason` of an attempt.
    pub fn reason(self) -> &'static str {
        match self {
            FailureCode::InsufficientAllowance => {
                "The subscriber's token allowance for the subscription contract is below the plan amount"
            }
            FailureCode::InsufficientBalance => {
                "The subscriber's wallet holds less than the plan amount"
            }
            FailureCode::SubscriptionInactive => "The subscription is no longer active on chain",
            FailureCode::ChainUnavailable => {
                "The network could not be reached; no charge was attempted"
            }
            FailureCode::PayerSanctioned => {
                "A sanctions source lists the subscriber's wallet; the subscription is paused"
            }
        }
    }
}

/// The longest dunning delay accepted (so schedule arithmetic can never overflow).
pub const MAX_DELAY_SECS: u64 = 365 * 86_400;

/// Retry delays after a failed charge (D10): `STABLEPAY_DUNNING_DELAYS`, default 1d,3d,5d.
/// Each delay counts from the failure before it; the attempt after the last retry that
/// fails expires the subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DunningPolicy {
    delays_secs: Vec<u64>,
}

impl Default for DunningPolicy {
    fn default() -> Self {
        Self {
            delays_secs: vec![86_400, 3 * 86_400, 5 * 86_400],
        }
    }
}

impl DunningPolicy {
    /// A comma-separated list of durations, each from 1 s to 365 days ("1d,3d,5d",
    /// "5s,5s,5s").
    pub fn parse(s: &str) -> Result<Self, String> {
        let delays_secs = s
            .split(',')
            .map(|d| {
                parse_duration(d)
                    .map(|d| d.as_secs())
                    .filter(|secs| (1..=MAX_DELAY_SECS).contains(secs))
                    .ok_or_else(|| format!("`{}` is not a duration from 1s to 365d", d.trim()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { delays_secs })
    }

    pub fn delays_secs(&self) -> &[u64] {
        &self.delays_secs
    }

    /// How many retries follow a failed charge.
    pub fn retries(&self) -> u32 {
        u32::try_from(self.delays_secs.len()).unwrap_or(u32::MAX)
    }
}

/// The billing fields of a subscription that charges change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingState {
    pub status: SubscriptionStatus,
    pub retry_count: u32,
    pub next_retry_at: Option<Timestamp>,
    pub last_failure_code: Option<FailureCode>,
    pub next_payment_at: Option<Timestamp>,
    pub canceled_at: Option<Timestamp>,
}

/// A transition: the state after it and the events it fires (in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub state: BillingState,
    pub events: Vec<EventType>,
}

impl BillingState {
    /// The billing fields of `sub` (an unknown stored failure code reads as none).
    pub fn of(sub: &Subscription) -> Self {
        Self {
            status: sub.status,
            retry_count: sub.retry_count,
            next_retry_at: sub.next_retry_at,
            last_failure_code: sub
                .last_failure_code
                .as_deref()
                .and_then(FailureCode::parse),
            next_payment_at: sub.next_payment_at,
            canceled_at: sub.canceled_at,
        }
    }

    /// `sub` with these billing fields.
    pub fn applied_to(&self, sub: &Subscription) -> Subscription {
        Subscription {
            status: self.status,
            retry_count: self.retry_count,
            next_retry_at: self.next_retry_at,
            last_failure_code: self.last_failure_code.map(|c| c.as_str().to_owned()),
            next_payment_at: self.next_payment_at,
            canceled_at: self.canceled_at,
            ..sub.clone()
        }
    }

    /// Statuses in which the subscription may still be charged or resumed.
    pub fn is_live(&self) -> bool {
        matches!(
            self.status,
            SubscriptionStatus::Pending
                | SubscriptionStatus::Active
                | SubscriptionStatus::PastDue
                | SubscriptionStatus::Paused
        )
    }

    fn unchanged(&self) -> Transition {
        Transition {
            state: self.clone(),
            events: Vec::new(),
        }
    }

    /// A charge (first or recurring, or a dunning retry) confirmed on chain: `active`,
    /// retries reset, next payment from the chain.
    pub fn charge_succeeded(&self, next_payment_at: Timestamp) -> Transition {
        if !self.is_live() || self.status == SubscriptionStatus::Paused {
            return self.unchanged();
        }
        Transition {
            state: BillingState {
                status: SubscriptionStatus::Active,
                retry_count: 0,
                next_retry_at: None,
                last_failure_code: None,
                next_payment_at: Some(next_payment_at),
                canceled_at: None,
            },
            events: vec![EventType::PaymentSucceeded],
        }
    }

    /// A charge attempt failed with `code` at `now`.
    pub fn charge_failed(
        &self,
        code: FailureCode,
        now: Timestamp,
        policy: &DunningPolicy,
    ) -> Transition {
        if !matches!(
            self.status,
            SubscriptionStatus::Active | SubscriptionStatus::PastDue
        ) {
            return self.unchanged();
        }
        match code {
            // Nothing was tried: recorded, but neither a retry nor a status change.
            FailureCode::ChainUnavailable => Transition {
                state: BillingState {
                    last_failure_code: Some(code),
                    ..self.clone()
                },
                events: Vec::new(),
            },
            // The chain says it is canceled: the same transition as a seen cancel.
            FailureCode::SubscriptionInactive => self.canceled(now),
            FailureCode::PayerSanctioned => self.paused_for_sanctions(),
            FailureCode::InsufficientAllowance | FailureCode::InsufficientBalance => {
                self.dunning_step(code, now, policy)
            }
        }
    }

    /// `retry_count` counts the retries already made in this dunning cycle: 0 after the
    /// failure that started it, n after the n-th retry failed.
    fn dunning_step(
        &self,
        code: FailureCode,
        now: Timestamp,
        policy: &DunningPolicy,
    ) -> Transition {
        let retries_made = match self.status {
            SubscriptionStatus::PastDue => self.retry_count + 1,
            _ => 0,
        };
        if retries_made >= policy.retries() {
            return Transition {
                state: BillingState {
                    status: SubscriptionStatus::Expired,
                    retry_count: retries_made,
                    next_retry_at: None,
                    last_failure_code: Some(code),
                    next_payment_at: None,
                    canceled_at: None,
                },
                events: vec![EventType::PaymentFailed, EventType::SubscriptionExpired],
            };
        }
        let delay = policy.delays_secs()[retries_made as usize];
        let mut events = vec![EventType::PaymentFailed];
        if self.status == SubscriptionStatus::Active {
            events.push(EventType::SubscriptionPastDue);
        }
        Transition {
            state: BillingState {
                status: SubscriptionStatus::PastDue,
                retry_count: retries_made,
                next_retry_at: Some(now.plus_seconds(i64::try_from(delay).unwrap_or(i64::MAX))),
                last_failure_code: Some(code),
                ..self.clone()
            },
            events,
        }
    }

    /// The plan's recipient wallet was revoked: no charges until it is verified again.
    pub fn paused(&self) -> Transition {
        match self.status {
            SubscriptionStatus::Active | SubscriptionStatus::PastDue => Transition {
                state: BillingState {
                    status: SubscriptionStatus::Paused,
                    next_retry_at: None,
                    ..self.clone()
                },
                events: Vec::new(),
            },
            _ => self.unchanged(),
        }
    }

    /// The recipient was verified again: `active`, charged from the current period on
    /// (periods that fell due while paused are skipped, as the contract skips them).
    /// Paused because a sanctions source lists the subscriber (D33): its reason kept in
    /// `last_failure_code`, and never resumed by the recipient's wallet.
    pub fn paused_for_sanctions(&self) -> Transition {
        let mut t = self.paused();
        if t.state.status == SubscriptionStatus::Paused {
            t.state.last_failure_code = Some(FailureCode::PayerSanctioned);
        }
        t
    }

    pub fn resumed(&self) -> Transition {
        match self.status {
            SubscriptionStatus::Paused
                if self.last_failure_code != Some(FailureCode::PayerSanctioned) =>
            {
                Transition {
                    state: BillingState {
                        status: SubscriptionStatus::Active,
                        retry_count: 0,
                        next_retry_at: None,
                        last_failure_code: None,
                        ..self.clone()
                    },
                    events: Vec::new(),
                }
            }
            _ => self.unchanged(),
        }
    }

    /// Canceled by the subscriber (portal or on chain) or the plan's recipient: fires
    /// `subscription.canceled` once; no charge after it.
    pub fn canceled(&self, now: Timestamp) -> Transition {
        if !self.is_live() {
            return self.unchanged();
        }
        Transition {
            state: BillingState {
                status: SubscriptionStatus::Canceled,
                next_retry_at: None,
                next_payment_at: None,
                canceled_at: Some(now),
                ..self.clone()
            },
            events: vec![EventType::SubscriptionCanceled],
        }
    }
}

#[cfg(test)]
mod tests;
