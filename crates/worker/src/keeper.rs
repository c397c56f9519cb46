//! The `ChargeKeeper` adapter: the EVM calls (simulate, sign, broadcast) composed with
//! the PostgreSQL nonce manager, so a nonce is taken and its signed charge stored in one
//! database transaction before anything reaches the node (D19).

use std::sync::Arc;

use async_trait::async_trait;
use ethers::signers::{LocalWallet, Signer};
use stablepay_domain::ports::{
    ChainError, ChainReader, ChargeKeeper, ChargeSimulation, Clock, InFlightCharge, KeeperError,
    Replacement,
};
use stablepay_domain::{Address, ChainId, PrivateKey, SubscriptionId, Timestamp, TxHash};
use stablepay_evm::balance::KeyBalance;
use stablepay_evm::fees::Fees;
use stablepay_evm::keeper::{keeper_wallet, sign_charge};
use stablepay_evm::relay::{resign, sign_fill};
use stablepay_evm::EvmChain;
use stablepay_postgres::{AttemptFees, PgStore};

pub struct EvmKeeper {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
    /// Its ETH against `STABLEPAY_KEEPER_MIN_BALANCE_WEI` (gauge `stablepay_keeper_balance_gwei`).
    balance: KeyBalance,
}

impl EvmKeeper {
    pub fn new(
        chain: Arc<EvmChain>,
        store: PgStore,
        clock: Arc<dyn Clock>,
        key: PrivateKey,
        min_balance_wei: u128,
    ) -> Result<Self, String> {
        let wallet = keeper_wallet(&key, ChainId::Base)?;
        let address = Address::from_bytes(wallet.address().0);
        Ok(Self {
            chain,
            store,
            clock,
            key,
            address,
            balance: KeyBalance::new(address, min_balance_wei, "stablepay_keeper_balance_gwei"),
        })
    }

    pub fn address(&self) -> Address {
        self.address
    }

    fn wallet(&self, chain: ChainId) -> Result<LocalWallet, KeeperError> {
        keeper_wallet(&self.key, chain).map_err(|_| KeeperError::NotConfigured(chain.id()))
    }
}

#[async_trait]
impl ChargeKeeper for EvmKeeper {
    async fn simulate_charge(
        &self,
        chain: ChainId,
        manager: Address,
        chain_subscription_id: u128,
    ) -> Result<ChargeSimulation, ChainError> {
        self.chain
            .simulate_charge(chain, self.address, manager, chain_subscription_id)
            .await
    }

    async fn send_charge(
        &self,
        chain: ChainId,
        manager: Address,
        subscription: SubscriptionId,
        chain_subscription_id: u128,
        period_key: Timestamp,
    ) -> Result<TxHash, KeeperError> {
        let wallet = self.wallet(chain)?;
        // Under its floor the keeper takes no new work (stuck charges are still replaced).
        if !self
            .balance
            .above_floor(&self.chain, chain, self.clock.now())
            .await?
        {
            return Err(KeeperError::Chain(ChainError::Unavailable(
                "the keeper holds less ETH than STABLEPAY_KEEPER_MIN_BALANCE_WEI: fund it".into(),
            )));
        }
        let mined = self.chain.mined_nonce(chain, self.address).await?;
        let fees = self.chain.suggest_fees(chain).await?;
        let head = self.chain.block_number(chain).await?;
        let stored = self
            .store
            .store_keeper_charge(
                chain,
                self.address,
                mined,
                subscription,
                period_key,
                self.clock.now(),
                attempt_fees(fees, head),
                |nonce| {
                    sign_charge(&wallet, chain, manager, chain_subscription_id, nonce, fees)
                        .map(|signed| (signed.hash, signed.raw))
                },
            )
            .await?;
        // Stored first: a failed broadcast is replaced (or sent again) by `replace`.
        if let Err(e) = self.chain.send_raw(chain, &stored.raw).await {
            tracing::warn!(chain = chain.id(), tx = %stored.tx_hash, nonce = stored.nonce, error = %e, "charge broadcast failed; it will be sent again");
        }
        Ok(stored.tx_hash)
    }

    async fn in_flight(&self, chain: ChainId) -> Result<Vec<InFlightCharge>, KeeperError> {
        Ok(self.store.open_keeper_charges(chain, self.address).await?)
    }

    async fn replace(
        &self,
        charge: &InFlightCharge,
        still_wanted: bool,
    ) -> Result<Replacement, KeeperError> {
        let chain = charge.chain;
        let head = self.chain.block_number(chain).await?;
        let Some(newest) = self.store.attempt(charge.tx_hash).await? else {
            return Err(KeeperError::Store(
                stablepay_domain::ports::StoreError::Internal(format!(
                    "charge {} has no stored attempt",
                    charge.tx_hash
                )),
            ));
        };
        let sent = Fees {
            max_fee_per_gas: newest.fees.max_fee_wei,
            max_priority_fee_per_gas: newest.fees.priority_fee_wei,
        };
        // Over the cap now, or no raise fits under it: the same bytes again.
        let raised = match self.chain.suggest_fees(chain).await {
            Ok(now) => sent.bumped(&now, self.chain.max_fee_wei(chain)),
            Err(_) => None,
        };
        let Some(fees) = raised else {
            // A charge no longer wanted is never sent again: left to the pool, it may
            // still be mined (and is then booked), but it is not put back in.
            if !still_wanted && !newest.fill {
                tracing::warn!(chain = chain.id(), tx = %charge.tx_hash, "an unwanted charge cannot be filled under the fee cap; not sent again");
                return Ok(Replacement::Resent);
            }
            self.broadcast(chain, charge.tx_hash, &newest.raw, "re-sent as it was")
                .await;
            self.store
                .keeper_attempt_resent(charge.tx_hash, head, self.clock.now())
                .await?;
            return Ok(Replacement::Resent);
        };
        let wallet = self.wallet(chain)?;
        // Once filled, a nonce stays a fill: the claim charges again if it still should.
        let fill = newest.fill || !still_wanted;
        let signed = if fill {
            sign_fill(&wallet, chain, newest.nonce, fees)
        } else {
            resign(&wallet, chain, &newest.raw, newest.nonce, fees)
        }
        .map_err(|e| KeeperError::Store(stablepay_domain::ports::StoreError::Internal(e)))?;
        let stored = self
            .store
            .store_keeper_replacement(
                chain,
                self.address,
                newest.nonce,
                &charge.tx_hash,
                (&signed.hash, &signed.raw),
                attempt_fees(fees, head),
                fill,
                self.clock.now(),
            )
            .await?;
        if !stored {
            // Settled meanwhile: nothing to replace.
            return Ok(Replacement::Resent);
        }
        let what = if fill {
            "filled"
        } else {
            "replaced at higher fees"
        };
        self.broadcast(chain, signed.hash, &signed.raw, what).await;
        Ok(if fill {
            Replacement::Fill(signed.hash)
        } else {
            Replacement::Charge(signed.hash)
        })
    }
}

impl EvmKeeper {
    /// Broadcasts stored bytes; "already known" or "nonce too low" mean the node has it or
    /// mined the nonce, so a refusal is only logged (the receipts decide).
    async fn broadcast(
        &self,
        chain: ChainId,
        tx: stablepay_domain::TxHash,
        raw: &[u8],
        what: &str,
    ) {
        match self.chain.send_raw(chain, raw).await {
            Ok(()) => tracing::info!(chain = chain.id(), %tx, "stuck charge {what}"),
            Err(e) => {
                tracing::info!(chain = chain.id(), %tx, error = %e, "charge broadcast refused ({what})")
            }
        }
    }
}

/// What the store keeps of an attempt's fees.
fn attempt_fees(fees: Fees, sent_block: u64) -> AttemptFees {
    AttemptFees {
        max_fee_wei: fees.max_fee_per_gas,
        priority_fee_wei: fees.max_priority_fee_per_gas,
        sent_block,
    }
}
