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
use stablepay_evm::keeper::{keeper_wallet, sign_charge};
use stablepay_evm::EvmChain;
use stablepay_postgres::{PgStore, SenderWork};

use crate::sender::{attempt_fees, Resent, Sender};

pub struct EvmKeeper {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
    /// Its ETH against `STABLEPAY_KEEPER_MIN_BALANCE_WEI` (gauge `stablepay_keeper_balance_gwei`).
    balance: KeyBalance,
    /// Replaces and fills its stuck charges.
    sender: Sender,
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
            sender: Sender::new(chain.clone(), store.clone(), clock.clone(), key.clone())?,
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
        // Every key's: a charge the previous keeper key sent before a rotation is still
        // followed to its receipt (and re-sent as it was; only its own key can replace it).
        Ok(self.store.open_keeper_charges(chain, None).await?)
    }

    async fn replace(
        &self,
        charge: &InFlightCharge,
        still_wanted: bool,
    ) -> Result<Replacement, KeeperError> {
        let resent = self
            .sender
            .resend(
                SenderWork::Charge,
                charge.chain,
                charge.tx_hash,
                still_wanted,
            )
            .await
            .map_err(|e| KeeperError::Chain(ChainError::Unavailable(e)))?;
        Ok(match resent {
            Resent::Replaced(tx) => Replacement::Charge(tx),
            Resent::Filled(tx) => Replacement::Fill(tx),
            Resent::Unchanged => Replacement::Resent,
        })
    }
}
