//! Every transaction signed at one of the service's nonces (D26), for the keeper's charges:
//! the first send and each replacement are stored before they are broadcast, so whichever
//! is mined is known, and a stuck nonce is replaced from what was sent.

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{ChargeAttempt, StoreError};
use stablepay_domain::{Address, ChainId, Timestamp, TxHash};

use crate::error::map_diesel_error;
use crate::rows::{to_i64, tx_hash};
use crate::schema::{keeper_transactions as kt, sender_attempts as sa};
use crate::PgStore;

/// What an attempt paid per gas, and the head it was broadcast at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttemptFees {
    pub max_fee_wei: u128,
    pub priority_fee_wei: u128,
    pub sent_block: u64,
}

/// The newest attempt at a nonce: what a replacement starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewestAttempt {
    pub nonce: u64,
    pub tx_hash: TxHash,
    pub raw: Vec<u8>,
    pub fees: AttemptFees,
    pub fill: bool,
}

/// Which nonce of which sender an attempt is at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AtNonce<'a> {
    pub chain_id: i32,
    pub sender: &'a str,
    pub nonce: u64,
}

/// One attempt's row, written in the transaction that stores its work.
pub(crate) async fn insert_attempt(
    conn: &mut diesel_async::AsyncPgConnection,
    AtNonce {
        chain_id,
        sender,
        nonce,
    }: AtNonce<'_>,
    (hash, raw): (&TxHash, &[u8]),
    fees: AttemptFees,
    fill: bool,
    now: Timestamp,
) -> Result<(), diesel::result::Error> {
    diesel::insert_into(sa::table)
        .values((
            sa::tx_hash.eq(hash.to_string()),
            sa::chain_id.eq(chain_id),
            sa::sender_address.eq(sender),
            sa::nonce.eq(to_i64(nonce)),
            sa::raw_tx.eq(raw),
            sa::max_fee_wei.eq(wei(fees.max_fee_wei)),
            sa::priority_fee_wei.eq(wei(fees.priority_fee_wei)),
            sa::fill.eq(fill),
            sa::sent_block.eq(to_i64(fees.sent_block)),
            sa::created_at.eq(now.as_datetime()),
        ))
        .execute(conn)
        .await?;
    Ok(())
}

/// Fees in wei as stored (bigint: far above any fee cap; saturating).
fn wei(v: u128) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn unwei(v: i64) -> u128 {
    u128::try_from(v).unwrap_or(0)
}

type AttemptRow = (String, i64, Vec<u8>, i64, i64, bool, i64);

impl PgStore {
    /// Every attempt at each of `nonces` of (`chain`, `sender`), newest first, with the
    /// head the newest was broadcast at.
    pub async fn attempts_at(
        &self,
        chain: ChainId,
        sender: Address,
        nonces: &[u64],
    ) -> Result<Vec<(u64, Vec<ChargeAttempt>, u64)>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<(i64, String, bool, i64)> = sa::table
            .filter(sa::chain_id.eq(chain.id() as i32))
            .filter(sa::sender_address.eq(sender.to_lower_hex()))
            .filter(sa::nonce.eq_any(nonces.iter().map(|n| to_i64(*n)).collect::<Vec<_>>()))
            .order((
                sa::nonce.asc(),
                sa::created_at.desc(),
                sa::max_fee_wei.desc(),
            ))
            .select((sa::nonce, sa::tx_hash, sa::fill, sa::sent_block))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        let mut out: Vec<(u64, Vec<ChargeAttempt>, u64)> = Vec::new();
        for (nonce, hash, fill, sent_block) in rows {
            let nonce = u64::try_from(nonce).unwrap_or(0);
            let attempt = ChargeAttempt {
                tx_hash: tx_hash(&hash)?,
                fill,
            };
            match out.last_mut() {
                Some((n, attempts, _)) if *n == nonce => attempts.push(attempt),
                _ => out.push((nonce, vec![attempt], u64::try_from(sent_block).unwrap_or(0))),
            }
        }
        Ok(out)
    }

    /// The attempt stored as `tx`, if it is one.
    pub async fn attempt(&self, tx: TxHash) -> Result<Option<NewestAttempt>, StoreError> {
        let mut conn = self.conn().await?;
        let row: Option<AttemptRow> = sa::table
            .filter(sa::tx_hash.eq(tx.to_string()))
            .select((
                sa::tx_hash,
                sa::nonce,
                sa::raw_tx,
                sa::max_fee_wei,
                sa::priority_fee_wei,
                sa::fill,
                sa::sent_block,
            ))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        row.map(|(hash, nonce, raw, max_fee, tip, fill, sent_block)| {
            Ok(NewestAttempt {
                nonce: u64::try_from(nonce).unwrap_or(0),
                tx_hash: tx_hash(&hash)?,
                raw,
                fees: AttemptFees {
                    max_fee_wei: unwei(max_fee),
                    priority_fee_wei: unwei(tip),
                    sent_block: u64::try_from(sent_block).unwrap_or(0),
                },
                fill,
            })
        })
        .transpose()
    }

    /// Stores a replacement of the keeper's charge at `nonce` and makes it the charge's
    /// newest attempt, in one transaction, if `replaces` is still its newest. False
    /// (nothing stored) when the charge was settled or replaced by another worker
    /// meanwhile: then nothing is to be broadcast.
    #[allow(clippy::too_many_arguments)]
    pub async fn store_keeper_replacement(
        &self,
        chain: ChainId,
        keeper: Address,
        nonce: u64,
        replaces: &TxHash,
        signed: (&TxHash, &[u8]),
        fees: AttemptFees,
        fill: bool,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn().await?;
        let chain_id = chain.id() as i32;
        let keeper = keeper.to_lower_hex();
        conn.transaction(async |conn| {
            let open = diesel::update(
                kt::table
                    .filter(kt::chain_id.eq(chain_id))
                    .filter(kt::keeper_address.eq(&keeper))
                    .filter(kt::nonce.eq(to_i64(nonce)))
                    .filter(kt::tx_hash.eq(replaces.to_string()))
                    .filter(kt::status.eq("sent")),
            )
            .set((
                kt::tx_hash.eq(signed.0.to_string()),
                kt::raw_tx.eq(signed.1),
                kt::last_broadcast_at.eq(now.as_datetime()),
            ))
            .execute(conn)
            .await?;
            if open == 0 {
                return Ok(false);
            }
            let at = AtNonce {
                chain_id,
                sender: &keeper,
                nonce,
            };
            insert_attempt(conn, at, signed, fees, fill, now).await?;
            Ok::<_, diesel::result::Error>(true)
        })
        .await
        .map_err(map_diesel_error)
    }

    /// Marks the newest attempt of an open charge broadcast again, at `sent_block`.
    pub async fn keeper_attempt_resent(
        &self,
        tx: TxHash,
        sent_block: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        diesel::update(sa::table.filter(sa::tx_hash.eq(tx.to_string())))
            .set(sa::sent_block.eq(to_i64(sent_block)))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        diesel::update(kt::table.filter(kt::tx_hash.eq(tx.to_string())))
            .set(kt::last_broadcast_at.eq(now.as_datetime()))
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        Ok(())
    }
}
