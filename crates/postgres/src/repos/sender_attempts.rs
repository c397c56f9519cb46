//! The sender's store (D26): every transaction signed at one of the service's nonces
//! (keeper charges, relayed payments, deposit sweeps). The first send and each
//! replacement are stored before they are broadcast, so whichever is mined is known, and a
//! stuck nonce is replaced from what was sent.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::{
    AttemptFees, ChargeAttempt, NewestAttempt, SentAttempts, SentWork, StoreError, WorkKind,
};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, Timestamp, TxHash};

use crate::error::map_diesel_error;
use crate::rows::{to_i64, tx_hash};
use crate::schema::{
    deposit_sweeps as ds, keeper_transactions as kt, relayed_transactions as rt,
    sender_attempts as sa,
};
use crate::PgStore;

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

type AttemptRow = (String, String, i64, Vec<u8>, i64, i64, bool, i64);

impl PgStore {
    /// Every attempt at each of `nonces` of (`chain`, `sender`), newest first, with the
    /// head the newest was broadcast at.
    pub async fn attempts_at_nonces(
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
                sa::sender_address,
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
        row.map(
            |(hash, sender, nonce, raw, max_fee, tip, fill, sent_block)| {
                Ok(NewestAttempt {
                    sender: crate::rows::address(&sender)?,
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
            },
        )
        .transpose()
    }

    /// Each of `work` (sender, nonce, newest attempt, last broadcast, relayed session) with every attempt
    /// at its nonce, newest first, and the head the newest was broadcast at (work without
    /// a stored attempt is listed with its own hash, due at once).
    pub(crate) async fn with_attempts(
        &self,
        kind: WorkKind,
        chain: ChainId,
        work: Vec<(Address, u64, TxHash, Timestamp, Option<CheckoutSessionId>)>,
    ) -> Result<Vec<SentWork>, StoreError> {
        let mut senders: Vec<Address> = work.iter().map(|w| w.0).collect();
        senders.sort_by_key(|a| a.to_lower_hex());
        senders.dedup();
        let mut attempts = Vec::new();
        for sender in senders {
            let nonces: Vec<u64> = work.iter().filter(|w| w.0 == sender).map(|w| w.1).collect();
            for (nonce, list, block) in self.attempts_at_nonces(chain, sender, &nonces).await? {
                attempts.push((sender, nonce, list, block));
            }
        }
        Ok(work
            .into_iter()
            .map(|(sender, nonce, tx_hash, last_broadcast_at, session)| {
                let found = attempts
                    .iter()
                    .position(|a| a.0 == sender && a.1 == nonce)
                    .map(|i| attempts.swap_remove(i));
                let (attempts, sent_block) = match found {
                    Some((_, _, list, block)) => (list, block),
                    None => (
                        vec![ChargeAttempt {
                            tx_hash,
                            fill: false,
                        }],
                        0,
                    ),
                };
                SentWork {
                    kind,
                    chain,
                    sender,
                    nonce,
                    tx_hash,
                    attempts,
                    sent_block,
                    last_broadcast_at,
                    session,
                }
            })
            .collect())
    }
}

#[async_trait]
impl SentAttempts for PgStore {
    async fn attempts_at(
        &self,
        chain: ChainId,
        sender: Address,
        nonce: u64,
    ) -> Result<Vec<ChargeAttempt>, StoreError> {
        Ok(self
            .attempts_at_nonces(chain, sender, &[nonce])
            .await?
            .into_iter()
            .flat_map(|(_, attempts, _)| attempts)
            .collect())
    }

    /// The attempt stored as `tx`, or, for work written before its attempts were kept (an
    /// older api during a rolling upgrade), the work's own row as its one attempt with
    /// unknown fees (0: any raise is the chain's price). `None`: no such work.
    async fn newest_attempt(
        &self,
        kind: WorkKind,
        tx: TxHash,
    ) -> Result<Option<NewestAttempt>, StoreError> {
        if let Some(attempt) = self.attempt(tx).await? {
            return Ok(Some(attempt));
        }
        let mut conn = self.conn().await?;
        let hash = tx.to_string();
        let row: Option<(String, i64, Vec<u8>)> = match kind {
            WorkKind::Charge => kt::table
                .filter(kt::tx_hash.eq(&hash))
                .select((kt::keeper_address, kt::nonce, kt::raw_tx))
                .first(&mut conn)
                .await
                .optional(),
            WorkKind::Relay => rt::table
                .filter(rt::tx_hash.eq(&hash))
                .select((rt::sender_address, rt::nonce, rt::raw_tx))
                .first(&mut conn)
                .await
                .optional(),
            WorkKind::Sweep => ds::table
                .filter(ds::tx_hash.eq(&hash))
                .select((ds::sender_address, ds::nonce, ds::raw_tx))
                .first(&mut conn)
                .await
                .optional(),
        }
        .map_err(map_diesel_error)?;
        row.map(|(sender, nonce, raw)| {
            Ok(NewestAttempt {
                sender: crate::rows::address(&sender)?,
                nonce: u64::try_from(nonce).unwrap_or(0),
                tx_hash: tx,
                raw,
                fees: AttemptFees {
                    max_fee_wei: 0,
                    priority_fee_wei: 0,
                    sent_block: 0,
                },
                fill: false,
            })
        })
        .transpose()
    }
}
