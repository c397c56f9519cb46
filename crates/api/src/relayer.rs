//! The `PaymentRelayer` adapter (D23, D26): the EVM calls (simulate, sign, broadcast)
//! composed with the PostgreSQL nonce manager the keeper uses, so a nonce is taken and the
//! signed payment stored with its session in one database transaction before anything
//! reaches the node, with its first attempt (fees, head). The worker's sender follows it from
//! there: records gas, replaces it at higher fees or fills its nonce (D26).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use stablepay_domain::ports::{
    ChainError, ChainReader, Clock, Inclusion, OneSignaturePayment, PayerRefusal, PaymentRelayer,
    RelayError, RelaySimulation, Relayed, RelayedAuthorization, RelayerReadiness, StoreError,
    TransferPayment,
};
use stablepay_domain::rules::relay_budget::{self, RelayGas, RevertBudget};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, PrivateKey, TxHash};
use stablepay_evm::balance::{FreshPerChain, KeyBalance};
use stablepay_evm::fees::Fees;
use stablepay_evm::keeper::keeper_wallet;
use stablepay_evm::relay::{sign_call, RelayCall};
use stablepay_evm::EvmChain;
use stablepay_postgres::{AttemptFees, PgStore, RelayFor, StoredRelay};

/// How often `await_inclusion` asks for a receipt (Base makes a block every 2 s).
const INCLUSION_POLL: Duration = Duration::from_millis(250);

pub struct EvmRelayer {
    chain: Arc<EvmChain>,
    store: PgStore,
    clock: Arc<dyn Clock>,
    key: PrivateKey,
    address: Address,
    /// Its ETH against `STABLEPAY_RELAYER_MIN_BALANCE_WEI`: every hosted page asks
    /// `readiness`.
    balance: KeyBalance,
    /// Gas lost to reverts that pauses relaying on a chain (D30).
    budget: RevertBudget,
    /// The last hour's relay gas per chain, as last read.
    relay_gas: FreshPerChain<RelayGas>,
}

impl EvmRelayer {
    pub fn new(
        chain: Arc<EvmChain>,
        store: PgStore,
        clock: Arc<dyn Clock>,
        key: PrivateKey,
        min_balance_wei: u128,
        budget: RevertBudget,
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
            budget,
            relay_gas: FreshPerChain::default(),
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

    async fn readiness(&self, chain: ChainId) -> Result<RelayerReadiness, ChainError> {
        let now = self.clock.now();
        if !self.balance.above_floor(&self.chain, chain, now).await? {
            return Ok(RelayerReadiness::Unavailable);
        }
        // Every hosted page asks: the hour's gas is read once per chain every few seconds.
        let since = now.plus_seconds(-relay_budget::WINDOW_SECS);
        let gas = self
            .relay_gas
            .get(chain, now, async {
                self.store
                    .relay_gas_since(chain, since)
                    .await
                    .map_err(|e| ChainError::Unavailable(e.to_string()))
            })
            .await?;
        let pause = self.budget.judge(gas);
        metrics::gauge!("stablepay_relayer_paused", "chain" => chain.id().to_string())
            .set(if pause.is_some() { 1.0 } else { 0.0 });
        Ok(match pause {
            Some(why) => RelayerReadiness::Paused(why),
            None => RelayerReadiness::Ready,
        })
    }

    async fn simulate(
        &self,
        chain: ChainId,
        payment: &OneSignaturePayment,
    ) -> Result<RelaySimulation, ChainError> {
        let fees = self.chain.suggest_fees(chain).await?;
        let call = RelayCall::payment(payment, fees);
        self.chain.simulate_relay(chain, self.address, &call).await
    }

    async fn relay(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &OneSignaturePayment,
        payer_balance: u128,
    ) -> Result<Relayed, RelayError> {
        let intent = &payment.intent;
        let relay = RelayFor {
            session,
            payer: payment.payer,
            valid_before: payment.valid_before,
            nonce: intent.reference,
            terms: None,
            token: intent.token,
            value: intent.net_amount.saturating_add(intent.fee_amount),
            payer_balance,
            code_hash: None,
            fill: Some(stablepay_evm::relay::cancel_fill(payment)),
        };
        self.send(chain, relay, |fees| RelayCall::payment(payment, fees))
            .await
    }

    async fn relayed_authorization(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<RelayedAuthorization>, StoreError> {
        self.store.relayed_authorization(session).await
    }

    async fn simulate_transfer(
        &self,
        chain: ChainId,
        payment: &TransferPayment,
    ) -> Result<RelaySimulation, ChainError> {
        let fees = self.chain.suggest_fees(chain).await?;
        let call = RelayCall::transfer(payment, fees);
        self.chain.simulate_relay(chain, self.address, &call).await
    }

    async fn relay_transfer(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        payment: &TransferPayment,
        payer_balance: u128,
    ) -> Result<Relayed, RelayError> {
        let a = &payment.authorization;
        let relay = RelayFor {
            session,
            payer: a.from,
            valid_before: a.valid_before,
            nonce: a.nonce,
            terms: Some(payment.terms()),
            token: payment.token,
            value: a.value,
            payer_balance,
            code_hash: None,
            // A direct transferWithAuthorization cannot be cancelled by the relayer: a
            // replay lands at the deposit address and is booked (D30).
            fill: None,
        };
        self.send(chain, relay, |fees| RelayCall::transfer(payment, fees))
            .await
    }

    async fn await_inclusion(
        &self,
        chain: ChainId,
        session: CheckoutSessionId,
        within: Duration,
    ) -> Result<Inclusion, ChainError> {
        let unknown = |e: StoreError| ChainError::Unavailable(e.to_string());
        let deadline = tokio::time::Instant::now() + within;
        loop {
            // Every attempt at the relay's nonce: the worker may have replaced the first.
            let Some((sender, nonce)) =
                self.store.relay_position(session).await.map_err(unknown)?
            else {
                return Ok(Inclusion::Failed);
            };
            let attempts = self
                .store
                .attempts_at(chain, sender, &[nonce])
                .await
                .map_err(unknown)?
                .into_iter()
                .flat_map(|(_, attempts, _)| attempts)
                .collect::<Vec<_>>();
            if let Some((attempt, receipt)) = self.chain.mined_attempt(chain, &attempts).await? {
                return Ok(if attempt.fill || !receipt.succeeded {
                    Inclusion::Failed
                } else {
                    Inclusion::Mined(attempt.tx_hash)
                });
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(Inclusion::NotYet);
            }
            tokio::time::sleep(INCLUSION_POLL).await;
        }
    }

    fn signer(&self) -> Address {
        self.address
    }
}

impl EvmRelayer {
    /// Simulates the call exactly as it will be signed (D30), takes a nonce, signs it and
    /// stores it with the session in one database transaction, then broadcasts.
    async fn send(
        &self,
        chain: ChainId,
        mut relay: RelayFor,
        call: impl FnOnce(Fees) -> RelayCall,
    ) -> Result<Relayed, RelayError> {
        let wallet =
            keeper_wallet(&self.key, chain).map_err(|_| RelayError::Unavailable(chain.id()))?;
        let (mined, fees, head, code_hash) = tokio::try_join!(
            self.chain.mined_nonce(chain, self.address),
            self.chain.suggest_fees(chain),
            ChainReader::block_number(self.chain.as_ref(), chain),
            self.chain.code_hash(chain, relay.payer),
        )?;
        relay.code_hash = code_hash;
        let call = call(fees);
        if let RelaySimulation::Reverts(why) = self
            .chain
            .simulate_relay(chain, self.address, &call)
            .await?
        {
            return Err(RelayError::WouldRevert(why));
        }
        let RelayCall { to, data, gas, .. } = call;
        let (payer, payer_balance) = (relay.payer, relay.payer_balance);
        let stored = self
            .store
            .store_relayed_payment(
                chain,
                self.address,
                mined,
                relay,
                self.clock.now(),
                AttemptFees {
                    max_fee_wei: fees.max_fee_per_gas,
                    priority_fee_wei: fees.max_priority_fee_per_gas,
                    sent_block: head,
                },
                |nonce| {
                    sign_call(&wallet, chain, to, data, gas, nonce, fees)
                        .map(|signed| (signed.hash, signed.raw))
                },
            )
            .await?;
        match stored {
            StoredRelay::Existing(tx) => Ok(Relayed::AlreadySubmitted(tx)),
            StoredRelay::PayerOvercommitted { promised } => {
                Err(RelayError::PayerRefused(PayerRefusal::Overcommitted {
                    payer,
                    promised,
                    balance: payer_balance,
                }))
            }
            StoredRelay::PayerCoolingDown { until } => {
                Err(RelayError::PayerRefused(PayerRefusal::CoolingDown {
                    payer,
                    until,
                }))
            }
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
