//! The service's one sender (D26, D31): every transaction the service signs (keeper
//! charges, relayed payments, deposit sweeps, and the replacements and fills of each) is
//! signed here, with one [`SendingKey`], at a nonce taken through the `SenderLedger` port,
//! at fees priced under the chain's cap, and stored before it is broadcast. What to do
//! with sent work is the domain's (`services::follow_sent_work`); this adapter only does
//! what it is told.

mod keeper;
mod receipts;
mod relayer;

use std::sync::Arc;

use async_trait::async_trait;
use ethers::signers::{LocalWallet, Signer};
use stablepay_domain::ports::{
    AttemptFees, ChainReader, Clock, ReplacementStored, Resent, SendError, SenderLedger,
    SentAttempts, SignedTx, SweepEntry, TransactionSender, WorkKind,
};
use stablepay_domain::{Address, ChainId, PrivateKey, TxHash};

use crate::calldata::sweep_many;
use crate::fees::Fees;
use crate::relay::{resign, sign_call, sign_fill_with};
use crate::EvmChain;

pub use keeper::EvmKeeper;
pub use relayer::EvmRelayer;

/// Gas for a `sweepMany`: a base and, per entry, more than a first sweep to a fresh
/// recipient costs (155,449 measured), so no entry runs out (the contract reverts the
/// batch rather than skip an entry for gas).
const SWEEP_BASE_GAS: u64 = 60_000;
const SWEEP_ENTRY_GAS: u64 = 180_000;

/// A key the service sends with (the keeper's or the relayer's), and its address.
#[derive(Clone)]
pub struct SendingKey {
    key: PrivateKey,
    address: Address,
}

impl std::fmt::Debug for SendingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SendingKey")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl SendingKey {
    /// Errors: the bytes are not a secp256k1 key (the message names no key material).
    pub fn new(key: PrivateKey) -> Result<Self, String> {
        let address = stablepay_domain::rules::eip191::address_of_private_key(key.expose())
            .ok_or("the key is not a valid secp256k1 key")?;
        Ok(Self { key, address })
    }

    pub fn address(&self) -> Address {
        self.address
    }

    /// Its signer on `chain` (EIP-155 chain id).
    pub fn wallet(&self, chain: ChainId) -> Result<LocalWallet, SendError> {
        LocalWallet::from_bytes(self.key.expose())
            .map(|w| w.with_chain_id(chain.id()))
            .map_err(|_| SendError::Signing("the key is not a valid secp256k1 key".into()))
    }
}

/// What a first send needs from the chain: the account's mined nonce, the fees to bid,
/// and the head they are stored with.
struct Pricing {
    mined: u64,
    fees: Fees,
    stored: AttemptFees,
}

/// The one sender: a key, the chain, and where its nonces and attempts are kept. A clone
/// is the same sender (its nonces come from the store).
#[derive(Clone)]
pub struct EvmSender {
    chain: Arc<EvmChain>,
    ledger: Arc<dyn SenderLedger>,
    attempts: Arc<dyn SentAttempts>,
    clock: Arc<dyn Clock>,
    key: SendingKey,
}

impl EvmSender {
    pub fn new<S>(
        chain: Arc<EvmChain>,
        store: Arc<S>,
        clock: Arc<dyn Clock>,
        key: SendingKey,
    ) -> Self
    where
        S: SenderLedger + SentAttempts + 'static,
    {
        Self {
            chain,
            ledger: store.clone(),
            attempts: store,
            clock,
            key,
        }
    }

    pub fn key(&self) -> &SendingKey {
        &self.key
    }

    pub(crate) fn chain(&self) -> &EvmChain {
        &self.chain
    }

    pub(crate) fn ledger(&self) -> &dyn SenderLedger {
        self.ledger.as_ref()
    }

    pub(crate) fn now(&self) -> stablepay_domain::Timestamp {
        self.clock.now()
    }

    /// The account's mined nonce (the lowest a new nonce may be), the fees to bid now and
    /// the head, read together.
    async fn pricing(&self, chain: ChainId) -> Result<Pricing, SendError> {
        let (mined, fees, head) = tokio::try_join!(
            self.chain.mined_nonce(chain, self.key.address),
            self.chain.suggest_fees(chain),
            ChainReader::block_number(self.chain.as_ref(), chain),
        )?;
        Ok(Pricing {
            mined,
            fees,
            stored: attempt_fees(fees, head),
        })
    }

    /// Broadcasts a first send's stored bytes. A failure is a warning, nothing more: the
    /// work is stored and is sent again once it is due.
    pub(crate) async fn broadcast(&self, chain: ChainId, tx: TxHash, raw: &[u8], what: &str) {
        match self.chain.send_raw(chain, raw).await {
            Ok(()) => tracing::debug!(chain = chain.id(), %tx, "{what} broadcast"),
            Err(e) => {
                tracing::warn!(chain = chain.id(), %tx, error = %e, "{what} broadcast failed; it will be sent again")
            }
        }
    }

    /// Broadcasts stuck work again (replaced, filled, or as it was). "already known" or
    /// "nonce too low" mean the node has it or mined the nonce, so a refusal is only
    /// logged: the receipts decide.
    async fn rebroadcast(&self, chain: ChainId, tx: TxHash, raw: &[u8], what: &str) {
        match self.chain.send_raw(chain, raw).await {
            Ok(()) => tracing::info!(chain = chain.id(), %tx, "stuck transaction {what}"),
            Err(e) => {
                tracing::info!(chain = chain.id(), %tx, error = %e, "broadcast refused ({what})")
            }
        }
    }
}

#[async_trait]
impl TransactionSender for EvmSender {
    fn address(&self) -> Address {
        self.key.address
    }

    async fn resend(
        &self,
        kind: WorkKind,
        chain: ChainId,
        newest: TxHash,
        wanted: bool,
    ) -> Result<Resent, SendError> {
        let head = ChainReader::block_number(self.chain.as_ref(), chain).await?;
        let Some(attempt) = self.attempts.newest_attempt(kind, newest).await? else {
            // Settled meanwhile.
            return Ok(Resent::Unchanged);
        };
        let sent = Fees {
            max_fee_per_gas: attempt.fees.max_fee_wei,
            max_priority_fee_per_gas: attempt.fees.priority_fee_wei,
        };
        // Over the cap now, or no raise fits under it: the same bytes again. Another key's
        // nonce (the key was rotated) can only be sent again as it was.
        let raised = match self.chain.suggest_fees(chain).await {
            Ok(now) if attempt.sender == self.key.address => {
                sent.bumped(&now, self.chain.max_fee_wei(chain))
            }
            _ => None,
        };
        let Some(fees) = raised else {
            // Unwanted work is never put back in the pool: left there it may still be
            // mined (and is then booked), but it is not sent again; only marked, so it
            // is asked about again once it is due again.
            if wanted || attempt.fill {
                self.rebroadcast(chain, newest, &attempt.raw, "re-sent as it was")
                    .await;
            } else {
                tracing::warn!(chain = chain.id(), tx = %newest, "unwanted work cannot be filled under the fee cap; not sent again");
            }
            self.ledger
                .attempt_resent(kind, newest, head, self.clock.now())
                .await?;
            return Ok(Resent::Unchanged);
        };
        let wallet = self.key.wallet(chain)?;
        let fill = attempt.fill || !wanted;
        let signed = if fill {
            // A router relay is filled with the operator-signed cancel of its ref, stored
            // with it (D30): its calldata can then never be replayed.
            let call = self
                .ledger
                .fill_call(kind, chain, attempt.sender, attempt.nonce)
                .await?;
            sign_fill_with(&wallet, chain, attempt.nonce, fees, call)
        } else {
            resign(&wallet, chain, &attempt.raw, attempt.nonce, fees)
        }
        .map_err(SendError::Signing)?;
        let stored = self
            .ledger
            .store_replacement(
                kind,
                chain,
                &attempt,
                &signed,
                attempt_fees(fees, head),
                fill,
                self.clock.now(),
            )
            .await?;
        if stored == ReplacementStored::Superseded {
            return Ok(Resent::Unchanged);
        }
        let what = if fill {
            "filled"
        } else {
            "replaced at higher fees"
        };
        self.rebroadcast(chain, signed.hash, &signed.raw, what)
            .await;
        metrics::counter!("stablepay_sender_replacements_total", "chain" => chain.id().to_string(), "work" => kind.label(), "fill" => fill.to_string())
            .increment(1);
        Ok(if fill {
            Resent::Filled(signed.hash)
        } else {
            Resent::Replaced(signed.hash)
        })
    }

    async fn send_sweep(
        &self,
        chain: ChainId,
        factory: Address,
        entries: &[SweepEntry],
    ) -> Result<Option<TxHash>, SendError> {
        let wallet = self.key.wallet(chain)?;
        let terms: Vec<_> = entries.iter().map(|e| (e.terms, e.token)).collect();
        let ids: Vec<_> = entries.iter().map(|e| (e.session, e.token)).collect();
        let data = sweep_many(&terms);
        let gas = SWEEP_BASE_GAS + SWEEP_ENTRY_GAS * entries.len() as u64;
        let price = self.pricing(chain).await?;
        let fees = price.fees;
        let sign = |nonce: u64| sign_call(&wallet, chain, factory, data.clone(), gas, nonce, fees);
        let stored = self
            .ledger
            .store_deposit_sweep(
                chain,
                self.key.address,
                price.mined,
                &ids,
                self.clock.now(),
                price.stored,
                &sign,
            )
            .await?;
        let Some(SignedTx { hash, raw }) = stored else {
            return Ok(None);
        };
        // Stored first: a failed broadcast is sent again (or replaced) once it is due.
        self.broadcast(chain, hash, &raw, "deposit sweep").await;
        Ok(Some(hash))
    }
}

/// What the ledger keeps of an attempt's fees.
pub(crate) fn attempt_fees(fees: Fees, sent_block: u64) -> AttemptFees {
    AttemptFees {
        max_fee_wei: fees.max_fee_per_gas,
        priority_fee_wei: fees.max_priority_fee_per_gas,
        sent_block,
    }
}
