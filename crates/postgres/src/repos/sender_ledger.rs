//! The sender's ledger (D19, D26, D31): where each kind of work takes its nonce and
//! stores its first attempt (`keeper.rs`, `relayed.rs`, `sweeps.rs`), and where every
//! replacement is stored over the attempt it was made from (`sender_attempts.rs`).

use async_trait::async_trait;
use stablepay_domain::ports::{
    AttemptFees, InFlightCharge, NewestAttempt, RelayFor, ReplacementStored, SenderLedger,
    SignAtNonce, SignedTx, StoreError, StoredRelay, WorkKind,
};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, SubscriptionId, Timestamp, TxHash};

use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};

use crate::error::map_diesel_error;
use crate::repos::sender_attempts::{insert_attempt, AtNonce};
use crate::rows::to_i64;
use crate::schema::{
    deposit_sweeps as ds, deposit_transfers as dt, keeper_transactions as kt,
    relayed_transactions as rt, sender_attempts as sa,
};
use crate::PgStore;

#[async_trait]
impl SenderLedger for PgStore {
    async fn store_keeper_charge(
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
        self.insert_keeper_charge(
            chain,
            keeper,
            chain_nonce,
            subscription,
            period_key,
            now,
            fees,
            sign,
        )
        .await
    }

    async fn store_relayed_payment(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        relay: RelayFor,
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<StoredRelay, StoreError> {
        self.insert_relayed_payment(chain, sender, chain_nonce, relay, now, fees, sign)
            .await
    }

    async fn store_deposit_sweep(
        &self,
        chain: ChainId,
        sender: Address,
        chain_nonce: u64,
        entries: &[(CheckoutSessionId, Address)],
        now: Timestamp,
        fees: AttemptFees,
        sign: &dyn SignAtNonce,
    ) -> Result<Option<SignedTx>, StoreError> {
        self.insert_deposit_sweep(chain, sender, chain_nonce, entries, now, fees, sign)
            .await
    }

    async fn store_replacement(
        &self,
        kind: WorkKind,
        chain: ChainId,
        replaces: &NewestAttempt,
        signed: &SignedTx,
        fees: AttemptFees,
        fill: bool,
        now: Timestamp,
    ) -> Result<ReplacementStored, StoreError> {
        // Only over the attempt it was made from, and only while the work is open: a sweep's
        // transfer rows follow it.
        let mut conn = self.conn().await?;
        let chain_id = chain.id() as i32;
        let sender = replaces.sender.to_lower_hex();
        let nonce = replaces.nonce;
        let (old, new) = (replaces.tx_hash.to_string(), signed.hash.to_string());
        let signed = (&signed.hash, signed.raw.as_slice());
        let at_nonce = to_i64(nonce);
        let broadcast = now.as_datetime();
        conn.transaction(async |conn| {
            let open = match kind {
                WorkKind::Charge => {
                    diesel::update(
                        kt::table
                            .filter(kt::chain_id.eq(chain_id))
                            .filter(kt::keeper_address.eq(&sender))
                            .filter(kt::nonce.eq(at_nonce))
                            .filter(kt::tx_hash.eq(&old))
                            .filter(kt::status.eq("sent")),
                    )
                    .set((
                        kt::tx_hash.eq(&new),
                        kt::raw_tx.eq(signed.1),
                        kt::last_broadcast_at.eq(broadcast),
                    ))
                    .execute(conn)
                    .await?
                }
                WorkKind::Relay => {
                    diesel::update(
                        rt::table
                            .filter(rt::chain_id.eq(chain_id))
                            .filter(rt::sender_address.eq(&sender))
                            .filter(rt::nonce.eq(at_nonce))
                            .filter(rt::tx_hash.eq(&old))
                            .filter(rt::status.eq("sent")),
                    )
                    .set((
                        rt::tx_hash.eq(&new),
                        rt::raw_tx.eq(signed.1),
                        rt::last_broadcast_at.eq(broadcast),
                    ))
                    .execute(conn)
                    .await?
                }
                WorkKind::Sweep => {
                    let open = diesel::update(
                        ds::table
                            .filter(ds::chain_id.eq(chain_id))
                            .filter(ds::sender_address.eq(&sender))
                            .filter(ds::nonce.eq(at_nonce))
                            .filter(ds::tx_hash.eq(&old))
                            .filter(ds::status.eq("sent")),
                    )
                    .set((
                        ds::tx_hash.eq(&new),
                        ds::raw_tx.eq(signed.1),
                        ds::last_broadcast_at.eq(broadcast),
                    ))
                    .execute(conn)
                    .await?;
                    if open > 0 {
                        diesel::update(dt::table.filter(dt::sweep_tx_hash.eq(&old)))
                            .set(dt::sweep_tx_hash.eq(&new))
                            .execute(conn)
                            .await?;
                    }
                    open
                }
            };
            if open == 0 {
                return Ok(ReplacementStored::Superseded);
            }
            let at = AtNonce {
                chain_id,
                sender: &sender,
                nonce,
            };
            insert_attempt(conn, at, signed, fees, fill, now).await?;
            Ok::<_, diesel::result::Error>(ReplacementStored::Stored)
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn attempt_resent(
        &self,
        kind: WorkKind,
        tx: TxHash,
        sent_block: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let hash = tx.to_string();
        let at = now.as_datetime();
        conn.transaction(async |conn| {
            diesel::update(sa::table.filter(sa::tx_hash.eq(&hash)))
                .set(sa::sent_block.eq(to_i64(sent_block)))
                .execute(conn)
                .await?;
            match kind {
                WorkKind::Charge => {
                    diesel::update(kt::table.filter(kt::tx_hash.eq(&hash)))
                        .set(kt::last_broadcast_at.eq(at))
                        .execute(conn)
                        .await?
                }
                WorkKind::Relay => {
                    diesel::update(rt::table.filter(rt::tx_hash.eq(&hash)))
                        .set(rt::last_broadcast_at.eq(at))
                        .execute(conn)
                        .await?
                }
                WorkKind::Sweep => {
                    diesel::update(ds::table.filter(ds::tx_hash.eq(&hash)))
                        .set(ds::last_broadcast_at.eq(at))
                        .execute(conn)
                        .await?
                }
            };
            Ok::<_, diesel::result::Error>(())
        })
        .await
        .map_err(map_diesel_error)
    }

    async fn open_charges(&self, chain: ChainId) -> Result<Vec<InFlightCharge>, StoreError> {
        self.open_keeper_charges(chain, None).await
    }

    async fn fill_call(
        &self,
        kind: WorkKind,
        chain: ChainId,
        sender: Address,
        nonce: u64,
    ) -> Result<Option<(Address, Vec<u8>)>, StoreError> {
        match kind {
            // Only a router relay has a call of its own to fill its nonce with (D30).
            WorkKind::Relay => self.relay_fill_call(chain, sender, nonce).await,
            WorkKind::Charge | WorkKind::Sweep => Ok(None),
        }
    }
}
