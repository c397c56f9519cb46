//! The service's one sender (D26) for what it signed and broadcast: keeper charges,
//! relayed payments and deposit sweeps. Any attempt at a nonce may be the one mined, so
//! each attempt's receipt is asked for; work that no attempt of has been mined is replaced
//! at its nonce once the domain's one rule ([`resend_due`]) says it is due, at fees raised by at least 12.5 %
//! under the chain's cap when it is still wanted, and by a 0-value transfer to the sender
//! itself when it is not (the nonces after it are never stuck behind it). Whether work is
//! still wanted is the caller's to say: it re-checks just before each re-send.

use std::sync::Arc;

use ethers::signers::{LocalWallet, Signer};
use stablepay_domain::ports::{ChainError, ChainReader, ChargeAttempt, Clock};
use stablepay_domain::{Address, ChainId, PrivateKey, TxHash};
use stablepay_evm::fees::Fees;
use stablepay_evm::keeper::keeper_wallet;
use stablepay_evm::relay::{resign, sign_fill_with};
use stablepay_evm::EvmChain;
use stablepay_postgres::{AttemptFees, PgStore, SenderWork, SentTx};

use stablepay_domain::rules::resend::resend_due;
pub use stablepay_domain::rules::resend::{REPLACE_AFTER_BLOCKS, RESEND_AFTER_SECS};

/// What [`Sender::resend`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resent {
    /// The work again at its nonce, at higher fees.
    Replaced(TxHash),
    /// A 0-value transfer to the sender at the nonce: the work is given up.
    Filled(TxHash),
    /// The newest attempt again as it was (no raise fits under the cap, or the nonce is
    /// another key's), or nothing (the work was settled or replaced meanwhile, or it is
    /// unwanted and no fill fits under the cap).
    Unchanged,
}

pub struct Sender {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
}

impl Sender {
    pub fn new(
        chain: Arc<EvmChain>,
        store: PgStore,
        clock: Arc<dyn Clock>,
        key: PrivateKey,
    ) -> Result<Self, String> {
        let wallet = keeper_wallet(&key, ChainId::Base)?;
        let address = Address::from_bytes(wallet.address().0);
        Ok(Self {
            chain,
            store,
            clock,
            key,
            address,
        })
    }

    /// The address its key signs for.
    pub fn address(&self) -> Address {
        self.address
    }

    pub fn wallet(&self, chain: ChainId) -> Result<LocalWallet, String> {
        keeper_wallet(&self.key, chain)
    }

    /// Whether `work`'s nonce went to a transaction that is none of its attempts: the
    /// account's mined nonce is past it and still no attempt has a receipt. The attempts
    /// are read again from the store and asked for after the nonce, so a replacement
    /// another worker stored meanwhile, one mined meanwhile, or one a lagging node had not
    /// indexed, is seen and the work is never written off while it went through.
    pub async fn nonce_lost(&self, work: &SentTx) -> Result<bool, String> {
        let (chain, nonce) = (work.chain, work.nonce);
        let mined = self
            .chain
            .mined_nonce(chain, work.sender)
            .await
            .map_err(|e| e.to_string())?;
        if mined <= nonce {
            return Ok(false);
        }
        let mut attempts: Vec<ChargeAttempt> = self
            .store
            .attempts_at(chain, work.sender, &[nonce])
            .await
            .map_err(|e| e.to_string())?
            .into_iter()
            .flat_map(|(_, list, _)| list)
            .collect();
        for known in &work.attempts {
            if !attempts.iter().any(|a| a.tx_hash == known.tx_hash) {
                attempts.push(*known);
            }
        }
        let receipt = self
            .chain
            .mined_attempt(chain, &attempts)
            .await
            .map_err(|e| e.to_string())?;
        Ok(receipt.is_none())
    }

    /// Whether the newest attempt of `work` is due to be sent again ([`resend_due`]: at
    /// least [`REPLACE_AFTER_BLOCKS`] blocks or [`RESEND_AFTER_SECS`] after its broadcast).
    pub async fn due(&self, work: &SentTx) -> Result<bool, ChainError> {
        let head = ChainReader::block_number(self.chain.as_ref(), work.chain).await?;
        Ok(resend_due(
            work.sent_block,
            head,
            work.last_broadcast_at,
            self.clock.now(),
        ))
    }

    /// Sends `kind`'s work whose newest attempt is `newest` again: replaced at higher fees
    /// when `wanted`, filled when not (a nonce once filled stays a fill), or the same
    /// bytes again when no raise fits under the cap. A replacement is stored before it is
    /// broadcast, and only over the attempt it was made from.
    pub async fn resend(
        &self,
        kind: SenderWork,
        chain: ChainId,
        newest: TxHash,
        wanted: bool,
    ) -> Result<Resent, String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let head = ChainReader::block_number(self.chain.as_ref(), chain)
            .await
            .map_err(|x| e(&x))?;
        let Some(attempt) = self
            .store
            .newest_attempt(kind, newest)
            .await
            .map_err(|x| e(&x))?
        else {
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
            Ok(now) if attempt.sender == self.address => {
                sent.bumped(&now, self.chain.max_fee_wei(chain))
            }
            _ => None,
        };
        let Some(fees) = raised else {
            // Unwanted work is never put back in the pool: left there, it may still be
            // mined (and is then booked), but it is not sent again.
            if !wanted && !attempt.fill {
                tracing::warn!(chain = chain.id(), tx = %newest, "unwanted work cannot be filled under the fee cap; not sent again");
                // Not broadcast, only marked: asked again once it is due again.
                self.store
                    .attempt_resent(kind, newest, head, self.clock.now())
                    .await
                    .map_err(|x| e(&x))?;
                return Ok(Resent::Unchanged);
            }
            self.broadcast(chain, newest, &attempt.raw, "re-sent as it was")
                .await;
            self.store
                .attempt_resent(kind, newest, head, self.clock.now())
                .await
                .map_err(|x| e(&x))?;
            return Ok(Resent::Unchanged);
        };
        let wallet = self.wallet(chain)?;
        let fill = attempt.fill || !wanted;
        let signed = if fill {
            // A router relay is filled with the operator-signed cancel of its ref, stored
            // with it (D30): its calldata can then never be replayed.
            let fill_call = match kind {
                SenderWork::Relay => self
                    .store
                    .relay_fill_call(chain, attempt.sender, attempt.nonce)
                    .await
                    .map_err(|x| e(&x))?,
                _ => None,
            };
            sign_fill_with(&wallet, chain, attempt.nonce, fees, fill_call)
        } else {
            resign(&wallet, chain, &attempt.raw, attempt.nonce, fees)
        }?;
        let stored = self
            .store
            .store_replacement(
                kind,
                chain,
                self.address,
                attempt.nonce,
                &newest,
                (&signed.hash, &signed.raw),
                attempt_fees(fees, head),
                fill,
                self.clock.now(),
            )
            .await
            .map_err(|x| e(&x))?;
        if !stored {
            return Ok(Resent::Unchanged);
        }
        let what = if fill {
            "filled"
        } else {
            "replaced at higher fees"
        };
        self.broadcast(chain, signed.hash, &signed.raw, what).await;
        metrics::counter!("stablepay_sender_replacements_total", "chain" => chain.id().to_string(), "work" => work_label(kind), "fill" => fill.to_string())
            .increment(1);
        Ok(if fill {
            Resent::Filled(signed.hash)
        } else {
            Resent::Replaced(signed.hash)
        })
    }

    /// Broadcasts stored bytes; "already known" or "nonce too low" mean the node has it or
    /// mined the nonce, so a refusal is only logged (the receipts decide).
    pub async fn broadcast(&self, chain: ChainId, tx: TxHash, raw: &[u8], what: &str) {
        match self.chain.send_raw(chain, raw).await {
            Ok(()) => tracing::info!(chain = chain.id(), %tx, "stuck transaction {what}"),
            Err(e) => {
                tracing::info!(chain = chain.id(), %tx, error = %e, "broadcast refused ({what})")
            }
        }
    }
}

fn work_label(kind: SenderWork) -> &'static str {
    match kind {
        SenderWork::Charge => "charge",
        SenderWork::Relay => "relay",
        SenderWork::Sweep => "sweep",
    }
}

/// What the store keeps of an attempt's fees.
pub fn attempt_fees(fees: Fees, sent_block: u64) -> AttemptFees {
    AttemptFees {
        max_fee_wei: fees.max_fee_per_gas,
        priority_fee_wei: fees.max_priority_fee_per_gas,
        sent_block,
    }
}
