//! Retention: what the worker deletes, and from when. Idempotency keys go once expired
//! (a replay after 24 h is a new request anyway); challenges and delivered webhook
//! records once older than the retention window (30 days by default, like Stripe's
//! event history).

use crate::model::Timestamp;
use crate::ports::{Clock, Purge, RetentionStore, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// `STABLEPAY_RETENTION` in seconds.
    pub window_secs: u64,
    /// Rows per delete statement: small, so no statement holds locks for long.
    pub batch: u32,
    /// Batches per table per run, so one run ends even while a table is flooded.
    pub max_batches: u32,
}

/// How many rows each purge deleted in one run.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PurgeReport {
    pub deleted: Vec<(Purge, u64)>,
}

pub fn purge_cutoff(what: Purge, now: Timestamp, policy: &RetentionPolicy) -> Timestamp {
    match what {
        Purge::ExpiredIdempotencyKeys => now,
        Purge::SpentWalletChallenges | Purge::DeliveredWebhookEvents => {
            now.plus_seconds(-i64::try_from(policy.window_secs).unwrap_or(i64::MAX))
        }
    }
}

/// Deletes, batch by batch, every record out of retention; stops a table at the first
/// short batch or after `max_batches`.
pub async fn purge_expired_records(
    store: &dyn RetentionStore,
    clock: &dyn Clock,
    policy: &RetentionPolicy,
) -> Result<PurgeReport, StoreError> {
    let now = clock.now();
    let mut report = PurgeReport::default();
    for what in Purge::ALL {
        let cutoff = purge_cutoff(what, now, policy);
        let mut total = 0;
        for _ in 0..policy.max_batches.max(1) {
            let n = store.purge(what, cutoff, policy.batch).await?;
            total += n;
            if n < u64::from(policy.batch) {
                break;
            }
        }
        report.deleted.push((what, total));
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockRetentionStore};
    use futures_executor::block_on;
    use mockall::predicate::eq;

    fn now() -> Timestamp {
        Timestamp::from_unix_seconds(1_795_435_200).unwrap()
    }

    fn policy() -> RetentionPolicy {
        RetentionPolicy {
            window_secs: 30 * 86_400,
            batch: 100,
            max_batches: 3,
        }
    }

    #[test]
    fn each_table_is_purged_batch_by_batch_from_its_own_cutoff() {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now());
        let month_ago = Timestamp::from_unix_seconds(1_795_435_200 - 30 * 86_400).unwrap();
        let mut store = MockRetentionStore::new();
        // Expired keys go at once: two full batches, then a short one ends the table.
        let mut calls = 0;
        store
            .expect_purge()
            .with(eq(Purge::ExpiredIdempotencyKeys), eq(now()), eq(100))
            .times(3)
            .returning(move |_, _, _| {
                calls += 1;
                Ok(if calls < 3 { 100 } else { 7 })
            });
        store
            .expect_purge()
            .with(eq(Purge::SpentWalletChallenges), eq(month_ago), eq(100))
            .times(1)
            .returning(|_, _, _| Ok(0));
        // A flooded table stops after max_batches; the next run continues.
        store
            .expect_purge()
            .with(eq(Purge::DeliveredWebhookEvents), eq(month_ago), eq(100))
            .times(3)
            .returning(|_, _, _| Ok(100));
        let report = block_on(purge_expired_records(&store, &clock, &policy())).unwrap();
        assert_eq!(
            report.deleted,
            vec![
                (Purge::ExpiredIdempotencyKeys, 207),
                (Purge::SpentWalletChallenges, 0),
                (Purge::DeliveredWebhookEvents, 300)
            ]
        );
    }

    #[test]
    fn a_storage_error_is_returned_not_swallowed() {
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now());
        let mut store = MockRetentionStore::new();
        store
            .expect_purge()
            .returning(|_, _, _| Err(StoreError::Unavailable("down".into())));
        let err = block_on(purge_expired_records(&store, &clock, &policy())).unwrap_err();
        assert_eq!(err, StoreError::Unavailable("down".into()));
    }
}
