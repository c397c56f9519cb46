//! The sender's ledger (D19, D26, D31): where each kind of work takes its nonce and
//! stores its first attempt (`keeper.rs`, `relayed.rs`, `sweeps.rs`), and where every
//! replacement is stored over the attempt it was made from (`sender_attempts.rs`).

use async_trait::async_trait;
use stablepay_domain::ports::{
    AttemptFees, InFlightCharge, NewestAttempt, RelayFor, ReplacementStored, SenderLedger,
    SignAtNonce, SignedTx, StoreError, StoredRelay, WorkKind,
};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, SubscriptionId, Timestamp, TxHash};

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
        self.store_replacement_of(kind, chain, replaces, signed, fees, fill, now)
            .await
    }

    async fn attempt_resent(
        &self,
        kind: WorkKind,
        tx: TxHash,
        sent_block: u64,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.attempt_resent_of(kind, tx, sent_block, now).await
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
