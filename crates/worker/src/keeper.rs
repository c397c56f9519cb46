//! The `ChargeKeeper` adapter: the EVM calls (simulate, sign, broadcast) composed with
//! the PostgreSQL nonce manager, so a nonce is taken and its signed charge stored in one
//! database transaction before anything reaches the node (D19).

use std::sync::Arc;

use async_trait::async_trait;
use ethers::signers::{LocalWallet, Signer};
use stablepay_domain::ports::{
    ChainError, ChargeKeeper, ChargeSimulation, Clock, InFlightCharge, KeeperError,
};
use stablepay_domain::{Address, ChainId, PrivateKey, SubscriptionId, Timestamp, TxHash};
use stablepay_evm::keeper::{keeper_wallet, sign_charge};
use stablepay_evm::EvmChain;
use stablepay_postgres::PgStore;

pub struct EvmKeeper {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
}

impl EvmKeeper {
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
        let mined = self.chain.mined_nonce(chain, self.address).await?;
        let fees = self.chain.suggest_fees(chain).await?;
        let stored = self
            .store
            .store_keeper_charge(
                chain,
                self.address,
                mined,
                subscription,
                period_key,
                self.clock.now(),
                |nonce| {
                    sign_charge(&wallet, chain, manager, chain_subscription_id, nonce, fees)
                        .map(|signed| (signed.hash, signed.raw))
                },
            )
            .await?;
        // Stored first: a failed broadcast is sent again by `rebroadcast`.
        if let Err(e) = self.chain.send_raw(chain, &stored.raw).await {
            tracing::warn!(chain = chain.id(), tx = %stored.tx_hash, nonce = stored.nonce, error = %e, "charge broadcast failed; it will be sent again");
        }
        Ok(stored.tx_hash)
    }

    async fn in_flight(&self, chain: ChainId) -> Result<Vec<InFlightCharge>, KeeperError> {
        Ok(self.store.open_keeper_charges(chain).await?)
    }

    async fn rebroadcast(&self, chain: ChainId, tx: TxHash) -> Result<(), KeeperError> {
        let Some(raw) = self
            .store
            .keeper_charge_for_rebroadcast(tx, self.clock.now())
            .await?
        else {
            return Ok(());
        };
        // "already known" / "nonce too low" mean the node has it or mined its nonce: the
        // receipt decides, so broadcast errors are only logged.
        if let Err(e) = self.chain.send_raw(chain, &raw).await {
            tracing::info!(chain = chain.id(), %tx, error = %e, "charge re-broadcast refused");
        }
        Ok(())
    }
}
