//! Sweeps of deposit addresses (D24, D26): nonces from the keeper's sequence, the signed
//! `sweepMany` stored (with the transfer rows it moves) before the first broadcast, and
//! the rows given back when a sweep reverts, is dropped, or fails for one entry.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    AttemptFees, DepositSweeps, MinedSweep, SentWork, SignAtNonce, SignedTx, StoreError, WorkKind,
};
use stablepay_domain::{Address, ChainId, CheckoutSession, CheckoutSessionId, Timestamp};
use uuid::Uuid;

use crate::error::map_diesel_error;
use crate::repos::keeper::{sign_at, take_nonce, used_nonce};
use crate::repos::sender_attempts::{insert_attempt, AtNonce};
use crate::rows::{to_i64, tx_hash, SessionRow};
use crate::schema::{checkout_sessions as cs, deposit_sweeps as ds, deposit_transfers as dt};
use crate::PgStore;
use stablepay_domain::rules::backoff::sweep_retry_delay;

/// Gives a sweep's rows back to the next sweep: all of them (the sweep reverted or was
/// dropped: nobody's fault, at once), or those of the (session ref, token) entries listed
/// (they failed: retried after a delay that doubles per failure).
async fn release(
    conn: &mut diesel_async::AsyncPgConnection,
    tx: &str,
    only: Option<&[([u8; 32], Address)]>,
    now: Timestamp,
) -> Result<(), diesel::result::Error> {
    let rows = dt::table.filter(dt::sweep_tx_hash.eq(tx));
    let Some(failed) = only else {
        diesel::update(rows)
            .set(dt::sweep_tx_hash.eq(None::<String>))
            .execute(conn)
            .await?;
        return Ok(());
    };
    for (session_ref, token) in failed {
        let session = cs::table
            .filter(cs::session_ref.eq(session_ref.to_vec()))
            .select(cs::id);
        let entry = || {
            dt::table
                .filter(dt::sweep_tx_hash.eq(tx))
                .filter(dt::checkout_session_id.eq_any(session.clone()))
                .filter(dt::token_address.eq(token.to_lower_hex()))
        };
        let attempts: Option<i32> = entry()
            .select(diesel::dsl::max(dt::sweep_attempts))
            .first(conn)
            .await?;
        let Some(attempts) = attempts else { continue };
        // The delivery's rule: this is failure `attempts + 1` in a row.
        let failures = u32::try_from(attempts).unwrap_or(0).saturating_add(1);
        let delay = sweep_retry_delay(failures);
        diesel::update(entry())
            .set((
                dt::sweep_tx_hash.eq(None::<String>),
                dt::sweep_attempts.eq(attempts.saturating_add(1)),
                dt::sweep_retry_at.eq(Some(now.plus_seconds(delay).as_datetime())),
            ))
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// Makes `hash`, an attempt at `sweep`'s nonce, the open sweep's transaction and its
/// rows', under the sweep row's lock (a replacement stored meanwhile moved them to its
/// own hash). False when the sweep is no longer open: nothing to record.
async fn adopt(
    conn: &mut diesel_async::AsyncPgConnection,
    sweep: &SentWork,
    hash: &str,
) -> Result<bool, diesel::result::Error> {
    let row = || {
        ds::table
            .filter(ds::chain_id.eq(sweep.chain.id() as i32))
            .filter(ds::sender_address.eq(sweep.sender.to_lower_hex()))
            .filter(ds::nonce.eq(to_i64(sweep.nonce)))
            .filter(ds::status.eq("sent"))
    };
    let current: Option<String> = row()
        .select(ds::tx_hash)
        .for_update()
        .first(conn)
        .await
        .optional()?;
    let Some(current) = current else {
        return Ok(false);
    };
    if current != hash {
        diesel::update(dt::table.filter(dt::sweep_tx_hash.eq(&current)))
            .set(dt::sweep_tx_hash.eq(hash))
            .execute(conn)
            .await?;
        diesel::update(row())
            .set(ds::tx_hash.eq(hash))
            .execute(conn)
            .await?;
    }
    Ok(true)
}

/// `Wallet::pays_in` for a deposit transfer's session recipient, as SQL (kept in step).
const RECIPIENT_PAYS: &str = "EXISTS (SELECT 1 FROM checkout_sessions s \
     JOIN wallets w ON w.merchant_id = s.merchant_id AND w.address = s.recipient_address \
     WHERE s.id = deposit_transfers.checkout_session_id AND w.status = 'verified' \
     AND (NOT s.livemode OR w.verified_mode = 'live'))";

/// No deposit of a session with a payment held for review is swept (D33): the merchant may
/// return it to its sender.
const NOT_UNDER_REVIEW: &str = "NOT EXISTS (SELECT 1 FROM payments p \
     WHERE p.checkout_session_id = deposit_transfers.checkout_session_id \
     AND p.review_status = 'pending')";

impl PgStore {
    /// In one database transaction: takes the sender's next nonce (never below
    /// `chain_nonce`), signs the sweep with it, stores it and marks the confirmed,
    /// unswept transfer rows of `sessions` as moved by it. `None`: nothing left to sweep
    /// (another worker took the rows), nothing signed.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn insert_deposit_sweep(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        entries: &[(CheckoutSessionId, Address)],
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<Option<SignedTx>, StoreError> {
        let mut conn = self.conn().await?;
        let chain_id = chain.id() as i32;
        let sender = sender.to_lower_hex();
        let ids: Vec<Uuid> = entries.iter().map(|(s, _)| s.uuid()).collect();
        let entries: Vec<(Uuid, String)> = entries
            .iter()
            .map(|(s, t)| (s.uuid(), t.to_lower_hex()))
            .collect();
        let stored = conn
            .transaction(async |conn| {
                let nonce = take_nonce(conn, chain_id, &sender, chain_nonce).await?;
                // Rows waiting out a retry delay stay out, even when new money of the
                // same entry is due.
                let unswept = || {
                    dt::table
                        .filter(dt::chain_id.eq(chain_id))
                        .filter(dt::checkout_session_id.eq_any(&ids))
                        .filter(dt::status.eq("confirmed"))
                        .filter(dt::sweep_tx_hash.is_null())
                        .filter(
                            dt::sweep_retry_at
                                .is_null()
                                .or(dt::sweep_retry_at.le(now.as_datetime())),
                        )
                        .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
                            NOT_UNDER_REVIEW,
                        ))
                };
                let unswept_rows: Vec<(Uuid, String)> = unswept()
                    .select((dt::checkout_session_id, dt::token_address))
                    .for_update()
                    .load(conn)
                    .await?;
                // Only the rows of the (session, token) entries this sweep carries.
                if !unswept_rows.iter().any(|row| entries.contains(row)) {
                    return Ok(None);
                }
                let (hash, raw) = sign_at(sign, nonce)?;
                diesel::insert_into(ds::table)
                    .values((
                        ds::chain_id.eq(chain_id),
                        ds::sender_address.eq(&sender),
                        ds::nonce.eq(to_i64(nonce)),
                        ds::tx_hash.eq(hash.to_string()),
                        ds::raw_tx.eq(&raw),
                        ds::entries.eq(i32::try_from(ids.len()).unwrap_or(i32::MAX)),
                        ds::created_at.eq(now.as_datetime()),
                        ds::last_broadcast_at.eq(now.as_datetime()),
                    ))
                    .execute(conn)
                    .await?;
                for (session, token) in &entries {
                    diesel::update(
                        unswept()
                            .filter(dt::checkout_session_id.eq(session))
                            .filter(dt::token_address.eq(token)),
                    )
                    .set(dt::sweep_tx_hash.eq(hash.to_string()))
                    .execute(conn)
                    .await?;
                }
                used_nonce(conn, chain_id, &sender, nonce).await?;
                let at = AtNonce {
                    chain_id,
                    sender: &sender,
                    nonce,
                };
                insert_attempt(conn, at, (&hash, &raw), fees, false, now).await?;
                Ok::<_, diesel::result::Error>(Some(SignedTx { hash, raw }))
            })
            .await
            .map_err(map_diesel_error)?;
        Ok(stored)
    }
}

#[async_trait]
impl DepositSweeps for PgStore {
    /// Sweep entries on `chain`: (session, token) pairs with confirmed deposit money no
    /// sweep has taken and no retry delay pending at `now`, least-failed first, at most
    /// `limit`. Money for a recipient that no longer takes the session's mode's money
    /// (revoked; for live money, not verified by a live key: `Wallet::pays_in`, D25/D30)
    /// is booked but never swept by the service on its own; anyone may still sweep it by
    /// the forwarder's fixed terms. Filtered before the limit, so such entries never take
    /// a batch's places.
    async fn unswept_deposits(
        &self,
        chain: ChainId,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(CheckoutSession, Address)>, StoreError> {
        let mut conn = self.conn().await?;
        let due: Vec<(Uuid, String)> = dt::table
            .filter(dt::chain_id.eq(chain.id() as i32))
            .filter(dt::status.eq("confirmed"))
            .filter(dt::sweep_tx_hash.is_null())
            .filter(
                dt::sweep_retry_at
                    .is_null()
                    .or(dt::sweep_retry_at.le(now.as_datetime())),
            )
            .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(RECIPIENT_PAYS))
            .filter(diesel::dsl::sql::<diesel::sql_types::Bool>(
                NOT_UNDER_REVIEW,
            ))
            .group_by((dt::checkout_session_id, dt::token_address))
            .order(diesel::dsl::max(dt::sweep_attempts).asc())
            .select((dt::checkout_session_id, dt::token_address))
            .limit(i64::from(limit))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let ids: Vec<Uuid> = due.iter().map(|(id, _)| *id).collect();
        let sessions: Vec<CheckoutSession> = cs::table
            .filter(cs::id.eq_any(ids))
            .select(SessionRow::as_select())
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?
            .into_iter()
            .map(CheckoutSession::try_from)
            .collect::<Result<_, _>>()?;
        due.into_iter()
            .filter_map(|(id, token)| {
                let session = sessions.iter().find(|s| s.id.uuid() == id)?;
                Some(crate::rows::address(&token).map(|t| (session.clone(), t)))
            })
            .collect()
    }

    /// Sweeps on `chain` not yet settled, oldest nonce first, each with every attempt at
    /// its nonce.
    async fn sent_sweeps(&self, chain: ChainId) -> Result<Vec<SentWork>, StoreError> {
        let rows: Vec<(String, i64, String, chrono::DateTime<chrono::Utc>)> = {
            let mut conn = self.conn().await?;
            ds::table
                .filter(ds::chain_id.eq(chain.id() as i32))
                .filter(ds::status.eq("sent"))
                .order(ds::nonce.asc())
                .select((
                    ds::sender_address,
                    ds::nonce,
                    ds::tx_hash,
                    ds::last_broadcast_at,
                ))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?
        };
        let work = rows
            .into_iter()
            .map(|(sender, nonce, hash, at)| {
                Ok((
                    crate::rows::address(&sender)?,
                    u64::try_from(nonce).unwrap_or(0),
                    tx_hash(&hash)?,
                    Timestamp::new(at),
                    None,
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        self.with_attempts(WorkKind::Sweep, chain, work).await
    }

    /// Records the receipt of `mined`, an attempt at `sweep`'s nonce (it becomes the
    /// sweep's transaction, and its rows'): mined (its rows stay moved, except those of the
    /// (session ref, token) entries that failed) or reverted (every row goes back), with
    /// the gas it used and what it cost in wei (decimal text).
    async fn sweep_mined(
        &self,
        sweep: &SentWork,
        mined: &MinedSweep,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let hash = mined.attempt.tx_hash.to_string();
        let (succeeded, gas_used, failed) = (
            mined.gas.succeeded,
            mined.gas.gas_used,
            mined.failed.as_slice(),
        );
        let cost_wei = mined.gas.cost_wei().to_string();
        conn.transaction(async |conn| {
            if !adopt(conn, sweep, &hash).await? {
                return Ok(());
            }
            let cost = diesel::dsl::sql::<diesel::sql_types::Numeric>("")
                .bind::<diesel::sql_types::Text, _>(cost_wei.clone())
                .sql("::numeric");
            diesel::update(
                ds::table
                    .filter(ds::tx_hash.eq(&hash))
                    .filter(ds::status.eq("sent")),
            )
            .set((
                ds::status.eq(if succeeded { "mined" } else { "reverted" }),
                ds::failed_entries.eq(i32::try_from(failed.len()).unwrap_or(i32::MAX)),
                ds::gas_used.eq(Some(to_i64(gas_used))),
                ds::gas_cost_wei.eq(cost.nullable()),
                ds::mined_at.eq(Some(now.as_datetime())),
            ))
            .execute(conn)
            .await?;
            if succeeded {
                release(conn, &hash, Some(failed), now).await
            } else {
                release(conn, &hash, None, now).await
            }
        })
        .await
        .map_err(map_diesel_error)
    }

    /// Marks a sweep dropped (its nonce went to a transaction it never sent): its rows go
    /// back. Only while `sweep.tx_hash` is still its newest attempt (a replacement stored
    /// meanwhile is followed first).
    async fn sweep_dropped(&self, sweep: &SentWork, now: Timestamp) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let hash = sweep.tx_hash.to_string();
        conn.transaction(async |conn| {
            let dropped = diesel::update(
                ds::table
                    .filter(ds::chain_id.eq(sweep.chain.id() as i32))
                    .filter(ds::sender_address.eq(sweep.sender.to_lower_hex()))
                    .filter(ds::nonce.eq(to_i64(sweep.nonce)))
                    .filter(ds::tx_hash.eq(&hash))
                    .filter(ds::status.eq("sent")),
            )
            .set(ds::status.eq("dropped"))
            .execute(conn)
            .await?;
            if dropped == 0 {
                return Ok(());
            }
            release(conn, &hash, None, now).await
        })
        .await
        .map_err(map_diesel_error)
    }
}
