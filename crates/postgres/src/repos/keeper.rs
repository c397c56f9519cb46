//! The keeper's nonce manager (D19): one nonce sequence per (chain, keeper address) in
//! the database. A nonce is taken, the charge signed with it and the signed transaction
//! stored in one database transaction, so several workers never reuse a nonce, none is
//! skipped, and a transaction a node dropped is sent again from its stored bytes.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{
    AttemptFees, ChargeAttempt, InFlightCharge, SentWork, SignAtNonce, SignedTx, StoreError,
    WorkKind,
};
use stablepay_domain::{Address, ChainId, SubscriptionId, Timestamp, TxHash};
use uuid::Uuid;

use super::sender_attempts::{insert_attempt, AtNonce};
use crate::error::map_diesel_error;
use crate::rows::{to_i64, tx_hash};
use crate::schema::{keeper_nonces as kn, keeper_transactions as kt};
use crate::PgStore;

/// (nonce, subscription, newest tx, period, last broadcast) of an open charge.
type OpenChargeRow = (
    i64,
    Uuid,
    String,
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::Utc>,
);

/// Signs at `nonce` inside the store's transaction: a signing failure rolls it back.
pub(crate) fn sign_at(
    sign: &dyn SignAtNonce,
    nonce: u64,
) -> Result<(TxHash, Vec<u8>), diesel::result::Error> {
    sign.sign_at(nonce).map(|s| (s.hash, s.raw)).map_err(|e| {
        diesel::result::Error::QueryBuilderError(format!("signing failed: {e}").into())
    })
}

/// Locks the sender's nonce sequence (concurrent senders of the same key queue here, in
/// any process) and returns the next nonce, never below `chain_nonce` (the account's mined
/// transaction count: a key also used elsewhere moves the sequence up). Keeper charges and
/// relayed payments share the sequence, so one key may do both.
pub(crate) async fn take_nonce(
    conn: &mut diesel_async::AsyncPgConnection,
    chain_id: i32,
    sender: &str,
    chain_nonce: u64,
) -> Result<u64, diesel::result::Error> {
    diesel::insert_into(kn::table)
        .values((
            kn::chain_id.eq(chain_id),
            kn::keeper_address.eq(sender),
            kn::next_nonce.eq(to_i64(chain_nonce)),
        ))
        .on_conflict_do_nothing()
        .execute(conn)
        .await?;
    let next: i64 = kn::table
        .filter(kn::chain_id.eq(chain_id))
        .filter(kn::keeper_address.eq(sender))
        .select(kn::next_nonce)
        .for_update()
        .first(conn)
        .await?;
    Ok(u64::try_from(next).unwrap_or(0).max(chain_nonce))
}

/// Records that `nonce` was used (within the transaction that took it).
pub(crate) async fn used_nonce(
    conn: &mut diesel_async::AsyncPgConnection,
    chain_id: i32,
    sender: &str,
    nonce: u64,
) -> Result<(), diesel::result::Error> {
    diesel::update(
        kn::table
            .filter(kn::chain_id.eq(chain_id))
            .filter(kn::keeper_address.eq(sender)),
    )
    .set(kn::next_nonce.eq(to_i64(nonce) + 1))
    .execute(conn)
    .await?;
    Ok(())
}

impl PgStore {
    /// Takes the next nonce of (`chain`, `keeper`), never below `chain_nonce` (the
    /// account's mined transaction count: a key also used elsewhere moves the sequence
    /// up), signs with it and stores the transaction, all in one database transaction.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn insert_keeper_charge(
        &self,
        chain: ChainId,
        keeper: Address,
        chain_nonce: u64,
        subscription: SubscriptionId,
        period_key: Timestamp,
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<SignedTx, StoreError> {
        let mut conn = self.conn().await?;
        let chain_id = chain.id() as i32;
        let keeper = keeper.to_lower_hex();
        let stored = conn
            .transaction(async |conn| {
                let nonce = take_nonce(conn, chain_id, &keeper, chain_nonce).await?;
                let (hash, raw) = sign_at(sign, nonce)?;
                diesel::insert_into(kt::table)
                    .values((
                        kt::chain_id.eq(chain_id),
                        kt::keeper_address.eq(&keeper),
                        kt::nonce.eq(to_i64(nonce)),
                        kt::subscription_id.eq(subscription.uuid()),
                        kt::period_key.eq(period_key.as_datetime()),
                        kt::tx_hash.eq(hash.to_string()),
                        kt::raw_tx.eq(&raw),
                        kt::status.eq("sent"),
                        kt::created_at.eq(now.as_datetime()),
                        kt::last_broadcast_at.eq(now.as_datetime()),
                    ))
                    .execute(conn)
                    .await?;
                used_nonce(conn, chain_id, &keeper, nonce).await?;
                let signed = (&hash, raw.as_slice());
                let at = AtNonce {
                    chain_id,
                    sender: &keeper,
                    nonce,
                };
                insert_attempt(conn, at, signed, fees, false, now).await?;
                Ok::<_, diesel::result::Error>(SignedTx { hash, raw })
            })
            .await
            .map_err(map_diesel_error)?;
        Ok(stored)
    }

    /// Charges sent on `chain` and not yet settled, by `keeper` or (`None`) by any key (a
    /// rotated keeper's charges in flight are still followed), oldest nonce first, each
    /// with every attempt at its nonce (migration 000011 gave charges in flight across the
    /// upgrade their one attempt; a charge without any is listed with its own hash).
    pub async fn open_keeper_charges(
        &self,
        chain: ChainId,
        keeper: Option<Address>,
    ) -> Result<Vec<InFlightCharge>, StoreError> {
        let rows: Vec<(String, OpenChargeRow)> = {
            let mut conn = self.conn().await?;
            let mut query = kt::table
                .filter(kt::chain_id.eq(chain.id() as i32))
                .filter(kt::status.eq("sent"))
                .into_boxed();
            if let Some(keeper) = keeper {
                query = query.filter(kt::keeper_address.eq(keeper.to_lower_hex()));
            }
            query
                .order((kt::keeper_address.asc(), kt::nonce.asc()))
                .select((
                    kt::keeper_address,
                    (
                        kt::nonce,
                        kt::subscription_id,
                        kt::tx_hash,
                        kt::period_key,
                        kt::last_broadcast_at,
                    ),
                ))
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?
        };
        let mut keepers: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
        keepers.dedup();
        let mut attempts = Vec::new();
        for key in keepers {
            let nonces: Vec<u64> = rows
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, r)| u64::try_from(r.0).unwrap_or(0))
                .collect();
            let address = crate::rows::address(key)?;
            for (nonce, list, block) in self.attempts_at_nonces(chain, address, &nonces).await? {
                attempts.push((address, nonce, list, block));
            }
        }
        let mut open = Vec::with_capacity(rows.len());
        for (key, (nonce, sub, hash, period, broadcast)) in rows {
            let keeper = crate::rows::address(&key)?;
            let hash = tx_hash(&hash)?;
            let nonce = u64::try_from(nonce).unwrap_or(0);
            let found = attempts
                .iter()
                .position(|a| a.0 == keeper && a.1 == nonce)
                .map(|i| attempts.swap_remove(i));
            let (attempts, sent_block) = match found {
                Some((_, _, list, block)) => (list, block),
                None => (
                    vec![ChargeAttempt {
                        tx_hash: hash,
                        fill: false,
                    }],
                    0,
                ),
            };
            open.push(InFlightCharge {
                work: SentWork {
                    kind: WorkKind::Charge,
                    chain,
                    sender: keeper,
                    nonce,
                    tx_hash: hash,
                    attempts,
                    sent_block,
                    last_broadcast_at: Timestamp::new(broadcast),
                    session: None,
                },
                subscription: SubscriptionId::from_uuid(sub),
                period_key: Timestamp::new(period),
            });
        }
        // Oldest nonce first within each key; keys one after another.
        Ok(open)
    }
}
