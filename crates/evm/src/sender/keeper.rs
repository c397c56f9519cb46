//! The `ChargeKeeper` adapter (D19): `charge` simulated and sent through the one sender,
//! its nonce taken and its signed transaction stored in one database transaction before
//! anything reaches the node.

use async_trait::async_trait;
use stablepay_domain::ports::{
    ChainError, ChargeKeeper, ChargeSimulation, InFlightCharge, KeeperError, SendError,
};
use stablepay_domain::{Address, ChainId, SubscriptionId, Timestamp, TxHash};

use super::EvmSender;
use crate::balance::KeyBalance;
use crate::keeper::sign_charge;

pub struct EvmKeeper {
    sender: EvmSender,
    /// Its ETH against `STABLEPAY_KEEPER_MIN_BALANCE_WEI` (gauge `stablepay_keeper_balance_gwei`).
    balance: KeyBalance,
}

impl EvmKeeper {
    pub fn new(sender: EvmSender, min_balance_wei: u128) -> Self {
        let address = sender.key().address();
        Self {
            sender,
            balance: KeyBalance::new(address, min_balance_wei, "stablepay_keeper_balance_gwei"),
        }
    }

    /// The sender the keeper's charges go through (billing follows them with it).
    pub fn sender(&self) -> &EvmSender {
        &self.sender
    }

    pub fn address(&self) -> Address {
        self.sender.key().address()
    }
}

fn keeper_error(e: SendError) -> KeeperError {
    match e {
        SendError::Chain(e) => KeeperError::Chain(e),
        SendError::Store(e) => KeeperError::Store(e),
        SendError::Signing(why) => KeeperError::Chain(ChainError::Unavailable(why)),
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
        self.sender
            .chain()
            .simulate_charge(chain, self.address(), manager, chain_subscription_id)
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
        let wallet = self
            .sender
            .key()
            .wallet(chain)
            .map_err(|_| KeeperError::NotConfigured(chain.id()))?;
        // Under its floor the keeper takes no new work (stuck charges are still replaced).
        let now = self.sender.now();
        if !self
            .balance
            .above_floor(self.sender.chain(), chain, now)
            .await?
        {
            return Err(KeeperError::Chain(ChainError::Unavailable(
                "the keeper holds less ETH than STABLEPAY_KEEPER_MIN_BALANCE_WEI: fund it".into(),
            )));
        }
        let price = self.sender.pricing(chain).await.map_err(keeper_error)?;
        let fees = price.fees;
        let sign =
            |nonce: u64| sign_charge(&wallet, chain, manager, chain_subscription_id, nonce, fees);
        let stored = self
            .sender
            .ledger()
            .store_keeper_charge(
                chain,
                self.address(),
                price.mined,
                subscription,
                period_key,
                now,
                price.stored,
                &sign,
            )
            .await?;
        // Stored first: a failed broadcast is sent again, or replaced, when billing follows
        // the charge in flight (`follow_unmined`).
        self.sender
            .broadcast(chain, stored.hash, &stored.raw, "keeper charge")
            .await;
        Ok(stored.hash)
    }

    async fn in_flight(&self, chain: ChainId) -> Result<Vec<InFlightCharge>, KeeperError> {
        // Every key's: a charge the previous keeper key sent before a rotation is still
        // followed to its receipt (and re-sent as it was; only its own key can replace it).
        Ok(self.sender.ledger().open_charges(chain).await?)
    }
}
