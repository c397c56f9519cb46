//! The `PaymentRelayer` adapter (D23, D26, D31): a payment simulated exactly as it will be
//! signed, then sent through the one sender, its nonce taken and the signed payment
//! stored with its session in one database transaction before anything reaches the node.
//! The worker follows it from there (`services::follow_relays`).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use stablepay_domain::ports::{
    ChainError, Inclusion, OneSignaturePayment, PayerRefusal, PaymentRelayer, RelayError, RelayFor,
    RelayRecords, RelaySimulation, Relayed, RelayedAuthorization, RelayerReadiness, SendError,
    SentAttempts, SentReceipts, StoreError, StoredRelay, TransferPayment,
};
use stablepay_domain::rules::relay_budget::{self, RelayGas, RevertBudget};
use stablepay_domain::{Address, ChainId, CheckoutSessionId, TxHash};

use super::EvmSender;
use crate::balance::{FreshPerChain, KeyBalance};
use crate::fees::Fees;
use crate::relay::{sign_call, RelayCall};

/// How often `await_inclusion` asks for a receipt (Base makes a block every 2 s).
const INCLUSION_POLL: Duration = Duration::from_millis(250);

pub struct EvmRelayer {
    sender: EvmSender,
    records: Arc<dyn RelayRecords>,
    attempts: Arc<dyn SentAttempts>,
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
    pub fn new<S>(
        sender: EvmSender,
        store: Arc<S>,
        min_balance_wei: u128,
        budget: RevertBudget,
    ) -> Self
    where
        S: RelayRecords + SentAttempts + 'static,
    {
        let address = sender.key().address();
        Self {
            sender,
            records: store.clone(),
            attempts: store,
            address,
            balance: KeyBalance::new(address, min_balance_wei, "stablepay_relayer_balance_gwei"),
            budget,
            relay_gas: FreshPerChain::default(),
        }
    }

    pub fn address(&self) -> Address {
        self.address
    }
}

#[async_trait]
impl PaymentRelayer for EvmRelayer {
    async fn relayed(&self, session: CheckoutSessionId) -> Result<Option<TxHash>, StoreError> {
        self.records.relayed_for_session(session).await
    }

    async fn readiness(&self, chain: ChainId) -> Result<RelayerReadiness, ChainError> {
        let now = self.sender.now();
        if !self
            .balance
            .above_floor(self.sender.chain(), chain, now)
            .await?
        {
            return Ok(RelayerReadiness::Unavailable);
        }
        // Every hosted page asks: the hour's gas is read once per chain every few seconds.
        let since = now.plus_seconds(-relay_budget::WINDOW_SECS);
        let gas = self
            .relay_gas
            .get(chain, now, async {
                self.records
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
        let fees = self.sender.chain().suggest_fees(chain).await?;
        let call = RelayCall::payment(payment, fees);
        self.sender
            .chain()
            .simulate_relay(chain, self.address, &call)
            .await
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
            fill: Some(crate::relay::cancel_fill(payment)),
        };
        self.send(chain, relay, |fees| RelayCall::payment(payment, fees))
            .await
    }

    async fn relayed_authorization(
        &self,
        session: CheckoutSessionId,
    ) -> Result<Option<RelayedAuthorization>, StoreError> {
        self.records.relayed_authorization(session).await
    }

    async fn simulate_transfer(
        &self,
        chain: ChainId,
        payment: &TransferPayment,
    ) -> Result<RelaySimulation, ChainError> {
        let fees = self.sender.chain().suggest_fees(chain).await?;
        let call = RelayCall::transfer(payment, fees);
        self.sender
            .chain()
            .simulate_relay(chain, self.address, &call)
            .await
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
            let Some((sender, nonce)) = self
                .records
                .relay_position(session)
                .await
                .map_err(unknown)?
            else {
                return Ok(Inclusion::Failed);
            };
            let attempts = self
                .attempts
                .attempts_at(chain, sender, nonce)
                .await
                .map_err(unknown)?;
            let mined = SentReceipts::mined_attempt(self.sender.chain(), chain, &attempts).await?;
            if let Some(m) = mined {
                return Ok(if m.attempt.fill || !m.gas.succeeded {
                    Inclusion::Failed
                } else {
                    Inclusion::Mined(m.attempt.tx_hash)
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
        let wallet = self
            .sender
            .key()
            .wallet(chain)
            .map_err(|_| RelayError::Unavailable(chain.id()))?;
        let evm = self.sender.chain();
        let (price, code_hash) = tokio::try_join!(
            async { self.sender.pricing(chain).await.map_err(relay_error) },
            async {
                evm.code_hash(chain, relay.payer)
                    .await
                    .map_err(RelayError::from)
            },
        )?;
        relay.code_hash = code_hash;
        let call = call(price.fees);
        if let RelaySimulation::Reverts(why) =
            evm.simulate_relay(chain, self.address, &call).await?
        {
            return Err(RelayError::WouldRevert(why));
        }
        let RelayCall {
            to,
            data,
            gas,
            fees,
            ..
        } = call;
        let (payer, payer_balance) = (relay.payer, relay.payer_balance);
        let sign = |nonce: u64| sign_call(&wallet, chain, to, data.clone(), gas, nonce, fees);
        let stored = self
            .sender
            .ledger()
            .store_relayed_payment(
                chain,
                self.address,
                price.mined,
                relay,
                self.sender.now(),
                price.stored,
                &sign,
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
            StoredRelay::New(signed) => {
                metrics::counter!("stablepay_relayer_sends_total", "chain" => chain.id().to_string())
                    .increment(1);
                // Stored first: a failed broadcast is sent again by the worker.
                self.sender
                    .broadcast(chain, signed.hash, &signed.raw, "relayed payment")
                    .await;
                Ok(Relayed::Submitted(signed.hash))
            }
        }
    }
}

fn relay_error(e: SendError) -> RelayError {
    match e {
        SendError::Chain(e) => RelayError::from(e),
        SendError::Store(e) => RelayError::from(e),
        SendError::Signing(why) => RelayError::from(ChainError::Unavailable(why)),
    }
}
