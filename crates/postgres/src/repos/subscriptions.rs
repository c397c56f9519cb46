//! Subscription writes (D10): the start (session, subscription, payment, attempt, events)
//! and every billing change in one transaction each, conditional on the version read;
//! due subscriptions claimed with `FOR UPDATE SKIP LOCKED` and a lease.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{
    BillingWrite, RegisteredPlan, SettlementWrite, StoreError, SubscriptionRecord,
    SubscriptionStart, SubscriptionStore,
};
use stablepay_domain::{
    Address, ChainId, MerchantId, Payment, SubscriptionId, SubscriptionStatus, Timestamp,
};
use uuid::Uuid;

use super::ledger::append_entries;
use super::outbox::{write_event, OutboxError};
use super::settlement::complete_session;
use crate::diesel_internals::Prepared;
use crate::error::map_diesel_error;
use crate::rows::{
    attempt_row, new_subscription_row, payment_row, subscription_record, to_i64, PaymentRow,
    SubscriptionRow, SubscriptionTermsRow,
};
use crate::schema::{
    checkout_sessions as cs, payment_attempts as pa, payments as p, subscription_plans as plans,
    subscriptions as s,
};
use crate::PgStore;

type RecordRow = (SubscriptionRow, SubscriptionTermsRow);

/// Distinct managers of recorded subscriptions, by skipping through the index
/// `subscriptions_by_manager` (one probe per manager, however many subscriptions): the
/// watcher asks every tick.
const MANAGERS_IN_USE_SQL: &str = "
WITH RECURSIVE managers AS (
    (SELECT manager_address FROM subscriptions
      WHERE chain_id = $1
      ORDER BY manager_address LIMIT 1)
    UNION ALL
    SELECT (SELECT s.manager_address FROM subscriptions s
             WHERE s.chain_id = $1 AND s.manager_address > managers.manager_address
             ORDER BY s.manager_address LIMIT 1)
      FROM managers WHERE managers.manager_address IS NOT NULL
)
SELECT manager_address FROM managers WHERE manager_address IS NOT NULL";

fn record_select() -> (
    diesel::helper_types::AsSelect<SubscriptionRow, diesel::pg::Pg>,
    diesel::helper_types::AsSelect<SubscriptionTermsRow, diesel::pg::Pg>,
) {
    (
        SubscriptionRow::as_select(),
        SubscriptionTermsRow::as_select(),
    )
}

const CLAIM_SQL: &str = "
UPDATE subscriptions SET billing_lease_until = $3
WHERE id IN (
    SELECT id FROM subscriptions sub
    WHERE sub.chain_id = $1
      AND ((sub.status = 'active' AND sub.next_payment_at <= $2)
        OR (sub.status = 'past_due' AND sub.next_retry_at <= $2))
      AND (sub.billing_lease_until IS NULL OR sub.billing_lease_until < $2)
      AND NOT EXISTS (SELECT 1 FROM keeper_transactions k
                      WHERE k.subscription_id = sub.id AND k.status = 'sent')
    ORDER BY COALESCE(sub.next_retry_at, sub.next_payment_at)
    LIMIT $4
    FOR UPDATE SKIP LOCKED)
RETURNING id";

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = sql_types::Uuid)]
    id: Uuid,
}

/// Why a billing transaction wrote nothing.
enum Outcome {
    Written,
    Stale,
}

async fn write_billing(
    conn: &mut AsyncPgConnection,
    w: &BillingWrite,
) -> Result<Outcome, OutboxError> {
    let sub = &w.subscription.subscription;
    // Check the payment first: a stale answer must not leave anything written.
    let mut payment_is_new = false;
    if let Some(upsert) = &w.payment {
        let current: Option<(Uuid, String)> = p::table
            .filter(p::subscription_id.eq(sub.id.uuid()))
            .filter(p::period_key.eq(upsert.payment.period_key.map(|t| t.as_datetime())))
            .select((p::id, p::status))
            .for_update()
            .first(conn)
            .await
            .optional()?;
        let expected = upsert
            .replaces
            .map(|st| (upsert.payment.id.uuid(), st.as_str()));
        if current.as_ref().map(|(id, st)| (*id, st.as_str())) != expected {
            return Ok(Outcome::Stale);
        }
        payment_is_new = current.is_none();
    }
    let changed = diesel::update(
        s::table
            .filter(s::id.eq(sub.id.uuid()))
            .filter(s::version.eq(w.subscription.version)),
    )
    .set((
        s::status.eq(sub.status.as_str()),
        s::next_payment_at.eq(sub.next_payment_at.map(|t| t.as_datetime())),
        s::canceled_at.eq(sub.canceled_at.map(|t| t.as_datetime())),
        s::retry_count.eq(i32::try_from(sub.retry_count).unwrap_or(i32::MAX)),
        s::next_retry_at.eq(sub.next_retry_at.map(|t| t.as_datetime())),
        s::last_failure_code.eq(&sub.last_failure_code),
        s::version.eq(w.subscription.version + 1),
        s::billing_lease_until.eq(w.hold_until.map(|t| t.as_datetime())),
    ))
    .execute(conn)
    .await?;
    if changed == 0 {
        return Ok(Outcome::Stale);
    }
    if let Some(upsert) = &w.payment {
        let row = payment_row(&upsert.payment);
        if payment_is_new {
            diesel::insert_into(p::table)
                .values(&row)
                .execute(conn)
                .await?;
        } else {
            diesel::update(p::table.filter(p::id.eq(row.id)))
                .set((
                    p::status.eq(&row.status),
                    p::tx_hash.eq(&row.tx_hash),
                    p::log_index.eq(row.log_index),
                    p::block_number.eq(row.block_number),
                    p::block_hash.eq(&row.block_hash),
                ))
                .execute(conn)
                .await?;
        }
    }
    if let Some(attempt) = &w.attempt {
        diesel::insert_into(pa::table)
            .values(&attempt_row(attempt))
            .execute(conn)
            .await?;
    }
    if let Some(tx) = w.settles_charge_tx {
        // The mined transaction may be an earlier attempt at the charge's nonce (D26).
        // Joined on the primary key (an OR over a correlated subquery would scan).
        diesel::sql_query(
            "UPDATE keeper_transactions kt SET status = 'done' \
             FROM (SELECT chain_id, sender_address AS keeper_address, nonce \
                   FROM sender_attempts WHERE tx_hash = $1 \
                   UNION SELECT chain_id, keeper_address, nonce \
                   FROM keeper_transactions WHERE tx_hash = $1) t \
             WHERE kt.chain_id = t.chain_id AND kt.keeper_address = t.keeper_address \
             AND kt.nonce = t.nonce",
        )
        .bind::<sql_types::Text, _>(tx.to_string())
        .execute(conn)
        .await?;
    }
    append_entries(conn, &w.ledger).await?;
    for event in &w.events {
        write_event(conn, event).await?;
    }
    Ok(Outcome::Written)
}

fn written(o: Outcome) -> SettlementWrite {
    match o {
        Outcome::Written => SettlementWrite::Written,
        Outcome::Stale => SettlementWrite::Stale,
    }
}

#[async_trait]
impl SubscriptionStore for PgStore {
    async fn register_plan(&self, plan: &RegisteredPlan) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::insert_into(plans::table)
            .values((
                plans::chain_id.eq(plan.chain.id() as i32),
                plans::manager_address.eq(plan.manager.to_lower_hex()),
                plans::plan_id.eq(plan.terms.plan_id.to_string()),
                plans::merchant_id.eq(plan.merchant_id.uuid()),
                plans::token_address.eq(plan.terms.token.to_lower_hex()),
                plans::recipient_address.eq(plan.terms.recipient.to_lower_hex()),
                plans::amount_micros.eq(to_i64(plan.terms.amount.micros())),
                plans::interval_seconds.eq(to_i64(plan.terms.interval_seconds)),
                plans::created_at.eq(plan.created_at.as_datetime()),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }

    async fn subscription_by_chain_id(
        &self,
        chain: ChainId,
        manager: Address,
        chain_subscription_id: u128,
    ) -> Result<Option<SubscriptionRecord>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<RecordRow> = s::table
            .filter(s::chain_id.eq(chain.id() as i32))
            .filter(s::chain_subscription_id.eq(chain_subscription_id.to_string()))
            .filter(s::manager_address.eq(manager.to_lower_hex()))
            .select(record_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(subscription_record).transpose()
    }

    async fn managers_in_use(&self, chain: ChainId) -> Result<Vec<Address>, StoreError> {
        #[derive(QueryableByName)]
        struct Manager {
            #[diesel(sql_type = sql_types::Text)]
            manager_address: String,
        }
        let mut conn = self.conn().await?;
        let rows: Vec<Manager> = diesel::sql_query(MANAGERS_IN_USE_SQL)
            .bind::<sql_types::Integer, _>(chain.id() as i32)
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.iter()
            .map(|r| crate::rows::address(&r.manager_address))
            .collect()
    }

    async fn subscription_public(
        &self,
        id: SubscriptionId,
    ) -> Result<Option<SubscriptionRecord>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<RecordRow> = s::table
            .filter(s::id.eq(id.uuid()))
            .select(record_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(subscription_record).transpose()
    }

    async fn payment_for_period(
        &self,
        subscription: SubscriptionId,
        period: Timestamp,
    ) -> Result<Option<Payment>, StoreError> {
        let mut conn = self.conn().await?;
        let row = p::table
            .filter(p::subscription_id.eq(subscription.uuid()))
            .filter(p::period_key.eq(period.as_datetime()))
            .select(PaymentRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(Payment::try_from).transpose()
    }

    async fn attempts_in_period(
        &self,
        subscription: SubscriptionId,
        period: Timestamp,
    ) -> Result<u32, StoreError> {
        let mut conn = self.conn().await?;
        let n: i64 = pa::table
            .filter(pa::subscription_id.eq(subscription.uuid()))
            .filter(pa::period_key.eq(period.as_datetime()))
            .count()
            .get_result(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    async fn record_subscription_start(
        &self,
        start: &SubscriptionStart,
    ) -> Result<SettlementWrite, StoreError> {
        let mut conn = self.conn().await?;
        let done = &start.session;
        let rec = &start.subscription;
        let outcome = conn
            .transaction(async |conn| {
                // Serialises the confirm fast path and the watcher on this session.
                let status: String = cs::table
                    .filter(cs::id.eq(done.id.uuid()))
                    .select(cs::status)
                    .for_update()
                    .first(conn)
                    .await?;
                let exists: i64 = s::table
                    .filter(s::chain_id.eq(rec.subscription.chain.id() as i32))
                    .filter(s::manager_address.eq(rec.manager.to_lower_hex()))
                    .filter(s::chain_subscription_id.eq(&rec.subscription.chain_subscription_id))
                    .count()
                    .get_result(conn)
                    .await?;
                if status == "completed" || exists > 0 {
                    return Ok(Outcome::Stale);
                }
                diesel::insert_into(s::table)
                    .values(&new_subscription_row(rec))
                    .execute(conn)
                    .await?;
                diesel::insert_into(p::table)
                    .values(&payment_row(&start.payment))
                    .execute(conn)
                    .await?;
                diesel::insert_into(pa::table)
                    .values(&attempt_row(&start.attempt))
                    .execute(conn)
                    .await?;
                if start.held() {
                    // Held for review (D33): open, its payer's customer and subscription
                    // named, so that an approval completes it as this write would have.
                    diesel::update(cs::table.filter(cs::id.eq(done.id.uuid())))
                        .set((
                            cs::customer_id.eq(done.customer.map(|c| c.uuid())),
                            cs::subscription_id.eq(done.subscription.map(|c| c.uuid())),
                        ))
                        .execute(conn)
                        .await?;
                } else {
                    complete_session(conn, done).await?;
                }
                append_entries(conn, &start.ledger).await?;
                for event in &start.events {
                    write_event(conn, event).await?;
                }
                Ok::<_, OutboxError>(Outcome::Written)
            })
            .await?;
        Ok(written(outcome))
    }

    async fn record_billing(&self, write: &BillingWrite) -> Result<SettlementWrite, StoreError> {
        let mut conn = self.conn().await?;
        let outcome = conn
            .transaction(async |conn| write_billing(conn, write).await)
            .await?;
        Ok(written(outcome))
    }

    async fn claim_due(
        &self,
        chain: ChainId,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<SubscriptionRecord>, StoreError> {
        let mut conn = self.conn().await?;
        let ids: Vec<IdRow> = Prepared(
            diesel::sql_query(CLAIM_SQL)
                .bind::<sql_types::Integer, _>(chain.id() as i32)
                .bind::<sql_types::Timestamptz, _>(now.as_datetime())
                .bind::<sql_types::Timestamptz, _>(lease_until.as_datetime())
                .bind::<sql_types::BigInt, _>(i64::from(limit)),
        )
        .load(&mut conn)
        .await
        .map_err(map_diesel_error)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<RecordRow> = s::table
            .filter(s::id.eq_any(ids.iter().map(|r| r.id).collect::<Vec<_>>()))
            .select(record_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(subscription_record).collect()
    }

    async fn merchant_name(&self, merchant: MerchantId) -> Result<Option<String>, StoreError> {
        let mut conn = self.conn().await?;
        crate::schema::merchants::table
            .filter(crate::schema::merchants::id.eq(merchant.uuid()))
            .select(crate::schema::merchants::name)
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }

    async fn live_for_recipient(
        &self,
        merchant: MerchantId,
        recipient: Address,
    ) -> Result<Vec<SubscriptionRecord>, StoreError> {
        let mut conn = self.conn().await?;
        let live: Vec<&str> = [
            SubscriptionStatus::Pending,
            SubscriptionStatus::Active,
            SubscriptionStatus::PastDue,
            SubscriptionStatus::Paused,
        ]
        .iter()
        .map(|st| st.as_str())
        .collect();
        let rows: Vec<RecordRow> = s::table
            .filter(s::merchant_id.eq(merchant.uuid()))
            .filter(s::recipient_address.eq(recipient.to_lower_hex()))
            .filter(s::status.eq_any(live))
            .select(record_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter().map(subscription_record).collect()
    }
}
