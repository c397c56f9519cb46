//! The `PaymentRelayer` adapter (D23, D26): the EVM calls (simulate, sign, broadcast)
//! composed with the PostgreSQL nonce manager the keeper uses, so a nonce is taken and the
//! signed payment stored with its session in one database transaction before anything
//! reaches the node, with its first attempt (fees, head). The worker's sender follows it from
//! there: records gas, replaces it at higher fees or fills its nonce (D26).

use std::sync::Arc;

use async_trait::async_trait;
use stablepay_domain::ports::{
    ChainError, ChainReader, Clock, OneSignaturePayment, PaymentRelayer, RelayError,
    RelaySimulation, Relayed, StoreError,
};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, PrivateKey, TxHash};
use stablepay_evm::balance::KeyBalance;
use stablepay_evm::keeper::keeper_wallet;
use stablepay_evm::relay::{payment_calldata, sign_call, ONE_SIGNATURE_GAS};
use stablepay_evm::EvmChain;
use stablepay_postgres::{AttemptFees, PgStore, RelayFor, StoredRelay};

pub struct EvmRelayer {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
    /// Its ETH against `STABLEPAY_RELAYER_MIN_BALANCE_WEI`: every hosted page asks `ready`.
    balance: KeyBalance,
}

impl EvmRelayer {
    pub fn new(
        chain: Arc<EvmChain>,
        store: PgStore,
        clock: Arc<dyn Clock>,
        key: PrivateKey,
        min_balance_wei: u128,
    ) -> Result<Self, String> {
        let address = stablepay_domain::rules::eip191::address_of_private_key(key.expose())
            .ok_or("STABLEPAY_RELAYER_KEY is not a valid secp256k1 key")?;
        Ok(Self {
            chain,
            store,
            clock,
            key,
            address,
            balance: KeyBalance::new(address, min_balance_wei, "stablepay_relayer_balance_gwei"),
        })
    }

    pub fn address(&self) -> Address {
        self.address
    }
}

#[async_trait]
impl PaymentRelayer for EvmRelayer {
    async fn relayed(&self, session: CheckoutSessionId) -> Result<Option<TxHash>, StoreError> {
        self.store.relayed_for_session(session).await
    }

    async fn ready(&self, chain: ChainId) -> Result<bool, ChainError> {
        self.balance
            .above_floor(&self.chain, chain, self.clock.now())
            .await
    }

    async fn simulate(
        &self,
        chain: ChainId,
        payment: &OneSignaturePayment,
    ) -> Result<RelaySimulation, ChainError> {
        self.chain
            .simulate_payment(chain, self.address, payment)
            .await
    }

    async fn relay(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &OneSignaturePayment,
    ) -> Result<Relayed, RelayError> {
        let wallet =
            keeper_wallet(&self.key, chain).map_err(|_| RelayError::Unavailable(chain.id()))?;
        let (mined, fees, head) = tokio::try_join!(
            self.chain.mined_nonce(chain, self.address),
            self.chain.suggest_fees(chain),
            ChainReader::block_number(self.chain.as_ref(), chain),
        )?;
        let data = payment_calldata(payment);
        let router = payment.router;
        let stored = self
            .store
            .store_relayed_payment(
                chain,
                self.address,
                mined,
                RelayFor {
                    session,
                    payer: payment.payer,
                    valid_before: payment.valid_before,
                },
                self.clock.now(),
                AttemptFees {
                    max_fee_wei: fees.max_fee_per_gas,
                    priority_fee_wei: fees.max_priority_fee_per_gas,
                    sent_block: head,
                },
                |nonce| {
                    sign_call(&wallet, chain, router, data, ONE_SIGNATURE_GAS, nonce, fees)
                        .map(|signed| (signed.hash, signed.raw))
                },
            )
            .await?;
        match stored {
            StoredRelay::Existing(tx) => Ok(Relayed::AlreadySubmitted(tx)),
            StoredRelay::AnotherPayerPending {
                payer,
                valid_before,
            } => Err(RelayError::AnotherPayerPending {
                payer,
                valid_before,
            }),
            StoredRelay::New { tx_hash, raw } => {
                metrics::counter!("stablepay_relayer_sends_total", "chain" => chain.id().to_string())
                    .increment(1);
                // Stored first: a failed broadcast is sent again by the worker.
                if let Err(e) = self.chain.send_raw(chain, &raw).await {
                    tracing::warn!(chain = chain.id(), tx = %tx_hash, error = %e, "relayed payment broadcast failed; the worker sends it again");
                }
                Ok(Relayed::Submitted(tx_hash))
            }
        }
    }
}
