//! Calldata a buyer's wallet sends, built server-side so the hosted page needs no ABI code.

use ethers::abi::AbiEncode;
use ethers::types::{Bytes, U256};
use stablepay_domain::rules::deposit::DepositTerms;
use stablepay_domain::rules::eip3009::TransferAuthorization;
use stablepay_domain::rules::eip712::{PaymentIntent, SubscribeIntent};
use stablepay_domain::{Address, Signature};

use crate::bindings::checkout_router::{CancelCall, Intent, PayCall, PayWithAuthorizationCall};
use crate::bindings::deposit_factory::{Deposit, SweepCall, SweepManyCall};
use crate::bindings::subscription_manager::{ChargeCall, SubscribeCall};
use crate::bindings::test_token::{ApproveCall, TransferWithAuthorizationCall};
use crate::to_h160;

fn on_chain(intent: &PaymentIntent) -> Intent {
    Intent {
        ref_: intent.reference,
        token: to_h160(&intent.token),
        recipient: to_h160(&intent.recipient),
        net_amount: U256::from(intent.net_amount),
        fee_amount: U256::from(intent.fee_amount),
        deadline: intent.deadline,
    }
}

pub fn pay(intent: &PaymentIntent, operator_signature: &Signature) -> Vec<u8> {
    PayCall {
        intent: on_chain(intent),
        operator_signature: Bytes::from(operator_signature.as_bytes().to_vec()),
    }
    .encode()
}

/// `CheckoutRouter.payWithAuthorization(intent, operatorSig, payer, validBefore,
/// payerSig)` (D23): what the relayer sends for a one-signature payment.
pub fn pay_with_authorization(
    intent: &PaymentIntent,
    operator_signature: &Signature,
    payer: &Address,
    valid_before: u64,
    payer_signature: &Signature,
) -> Vec<u8> {
    PayWithAuthorizationCall {
        intent: on_chain(intent),
        operator_signature: Bytes::from(operator_signature.as_bytes().to_vec()),
        payer: to_h160(payer),
        valid_before: U256::from(valid_before),
        payer_signature: Bytes::from(payer_signature.as_bytes().to_vec()),
    }
    .encode()
}

/// `CheckoutRouter.cancel(ref, operatorSig)` (D30): spends a session's ref; the fill of an
/// unwanted router relay's nonce.
pub fn cancel(reference: &[u8; 32], operator_signature: &Signature) -> Vec<u8> {
    CancelCall {
        ref_: *reference,
        operator_signature: Bytes::from(operator_signature.as_bytes().to_vec()),
    }
    .encode()
}

/// EIP-3009 `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce,
/// signature)`, the `bytes` overload (FiatToken v2.2's, which also takes ERC-1271
/// signatures): what the relayer sends for an x402 payment (D29).
pub fn transfer_with_authorization(a: &TransferAuthorization, signature: &Signature) -> Vec<u8> {
    TransferWithAuthorizationCall {
        from: to_h160(&a.from),
        to: to_h160(&a.to),
        value: U256::from(a.value),
        valid_after: U256::from(a.valid_after),
        valid_before: U256::from(a.valid_before),
        nonce: a.nonce,
        signature: Bytes::from(signature.as_bytes().to_vec()),
    }
    .encode()
}

/// ERC-20 `approve(spender, amount)`.
pub fn approve(spender: &Address, amount: u128) -> Vec<u8> {
    ApproveCall {
        spender: to_h160(spender),
        amount: U256::from(amount),
    }
    .encode()
}

/// `SubscriptionManager.subscribe(planId, ref, feeAmount, deadline, operatorSig)`.
pub fn subscribe(intent: &SubscribeIntent, operator_signature: &Signature) -> Vec<u8> {
    SubscribeCall {
        plan_id: U256::from(intent.plan_id),
        ref_: intent.reference,
        fee_amount: U256::from(intent.fee_amount),
        deadline: intent.deadline,
        operator_sig: Bytes::from(operator_signature.as_bytes().to_vec()),
    }
    .encode()
}

/// `SubscriptionManager.charge(subscriptionId)` (keeper only).
pub fn charge(chain_subscription_id: u128) -> Vec<u8> {
    ChargeCall {
        subscription_id: U256::from(chain_subscription_id),
    }
    .encode()
}

fn deposit(terms: &DepositTerms) -> Deposit {
    Deposit {
        ref_: terms.reference,
        token: to_h160(&terms.token),
        recipient: to_h160(&terms.recipient),
        fee_amount: U256::from(terms.fee_amount),
        fee_bps: U256::from(terms.fee_bps),
    }
}

/// `DepositFactory.sweep(terms, token)` (D24): anyone may send it; `token` is the zero
/// address for ETH.
pub fn sweep(terms: &DepositTerms, token: &Address) -> Vec<u8> {
    SweepCall {
        d: deposit(terms),
        token: to_h160(token),
    }
    .encode()
}

/// `DepositFactory.sweepMany(terms[], tokens[])`: one transaction for many deposits.
pub fn sweep_many(deposits: &[(DepositTerms, Address)]) -> Vec<u8> {
    SweepManyCall {
        ds: deposits.iter().map(|(t, _)| deposit(t)).collect(),
        tokens: deposits.iter().map(|(_, token)| to_h160(token)).collect(),
    }
    .encode()
}
