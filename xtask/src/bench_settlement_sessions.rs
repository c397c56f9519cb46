//! The sessions `cargo xtask bench settlement` pays, created through the domain's use
//! cases for one merchant with a verified wallet, and each one's payment made ready: the
//! buyer's own `pay` call, a one-signature payment for the relayer, or a plain transfer to
//! the session's deposit address. The buyers approve the router once.

use std::time::Duration;

use stablepay_domain::deployment::{ChainDirectory, TokenDirectory};
use stablepay_domain::ports::{OneSignaturePayment, SystemClock, WalletRepository};
use stablepay_domain::rules::eip191;
use stablepay_domain::rules::eip3009::{ReceiveAuthorization, TokenDomain};
use stablepay_domain::rules::eip712::{self, Domain, PaymentIntent};
use stablepay_domain::services::{
    create_checkout_session, prepare_checkout_session, register_wallet, CreateSessionDeps,
    NewSessionRequest, PrepareSessionDeps,
};
use stablepay_domain::*;
use stablepay_postgres::PgStore;

use crate::bench_settlement::{send, Paying};
use crate::chain::{self, DevChain};

/// One session to pay: its id, the calldata a buyer sends (to the router, or to the token
/// for a deposit), and its one-signature payment for the relayer.
pub(crate) type SessionToPay = (CheckoutSessionId, Vec<u8>, OneSignaturePayment);

/// `total` payment-mode sessions of 1 USDC and up, for a new merchant whose recipient wallet
/// is verified, each with its payment ready.
pub(crate) async fn sessions_to_pay(
    store: &PgStore,
    dev: &DevChain,
    total: usize,
    depth: u64,
    paying: Paying,
) -> Result<Vec<SessionToPay>, String> {
    let merchant = store
        .create_merchant("Bench", FeeTier::Standard)
        .await
        .map_err(|e| e.to_string())?;
    let ctx = stablepay_postgres::testing::api_key_context(merchant.id, Mode::Test);
    // A verified wallet (the signature check itself is covered by the tests).
    let recipient = Address::parse(&chain::address(9).to_lowercase()).map_err(|e| e.to_string())?;
    let by = stablepay_domain::Changer::OPERATOR;
    let reg = register_wallet(
        &ctx,
        recipient,
        ChainId::BaseSepolia,
        &by,
        store,
        &SystemClock,
    )
    .await
    .map_err(|e| e.to_string())?;
    let now = Timestamp::new(chrono::Utc::now());
    let audit = stablepay_domain::AuditEvent::of(
        &by,
        ctx.merchant_id,
        Some(ctx.mode),
        stablepay_domain::AuditAction::WalletVerified,
        reg.wallet.id,
        now,
    );
    let nonce = reg.challenge.map(|c| c.nonce).unwrap_or_default();
    let used = store
        .mark_verified(reg.wallet.id, &nonce, now, ctx.mode, &audit)
        .await
        .map_err(|e| e.to_string())?;
    if !matches!(used, stablepay_domain::ports::ChallengeUse::Consumed(_)) {
        return Err("the bench wallet's challenge could not be used".into());
    }
    let usdc = Address::parse(&dev.usdc.to_lowercase()).map_err(|e| e.to_string())?;
    let router = Address::parse(&dev.checkout_router.to_lowercase()).map_err(|e| e.to_string())?;
    let tokens = TokenDirectory::new().with(ChainId::BaseSepolia, Currency::Usdc, usdc);
    // Payment-mode sessions never read the chain or the subscription store; with
    // `--deposits` they carry the deposit address of the chain's factory.
    let no_chain = stablepay_evm::EvmChain::new(&[], Duration::from_secs(1))?;
    let factory = Address::parse(&dev.deposit_factory.to_lowercase()).map_err(|e| e.to_string())?;
    let no_chains = match paying {
        Paying::Deposits => {
            ChainDirectory::new(vec![stablepay_domain::deployment::ChainContracts {
                chain: ChainId::BaseSepolia,
                checkout_router: router,
                treasury: Address::parse(&chain::address(chain::TREASURY).to_lowercase())
                    .map_err(|e| e.to_string())?,
                subscription_manager: None,
                deposit_factory: Some(factory),
                confirmations: depth,
            }])
        }
        _ => ChainDirectory::default(),
    };
    let no_feeds = stablepay_domain::deployment::PriceFeeds::default();
    let read = PrepareSessionDeps {
        tokens: &tokens,
        chain: &no_chain,
        chains: &no_chains,
        feeds: &no_feeds,
        clock: &SystemClock,
    };
    let deps = CreateSessionDeps {
        sessions: store,
        wallets: store,
        clock: &SystemClock,
        tokens: &tokens,
        chains: &no_chains,
        subscriptions: store,
        plan_min_interval_secs: 86_400,
    };

    // Buyers approve the router once.
    let buyers: Vec<String> = chain::BUYERS.iter().map(|i| chain::address(*i)).collect();
    for b in &buyers {
        send(
            &dev.rpc_url,
            b,
            &dev.usdc,
            &stablepay_evm::calldata::approve(&router, u128::MAX >> 1),
        )?;
    }
    let key = chain::key_bytes(chain::OPERATOR);
    let domain = Domain {
        name: eip712::ROUTER_NAME,
        chain_id: 84532,
        verifying_contract: router,
    };
    let mut calls = Vec::with_capacity(total);
    for i in 0..total {
        let req = NewSessionRequest {
            terms: SessionTerms::Payment {
                amount: Amount::from_micros(1_000_000 + i as u64).map_err(|e| e.to_string())?,
            },
            title: Title::parse(&format!("Bench {i}")).map_err(|e| e.to_string())?,
            description: None,
            recipient: None,
            customer_reference: None,
            metadata: MetadataJson::empty(),
            success_url: None,
            cancel_url: None,
            underpayment_tolerance: None,
            payment_link: None,
            requoted_from: None,
            expires_in_seconds: 3600,
            chain: None,
            currency: Some(Currency::Usdc),
        };
        let prepared = prepare_checkout_session(&ctx.owner(), req, &read)
            .await
            .map_err(|e| e.to_string())?;
        let s = create_checkout_session(&ctx.owner(), prepared, &deps)
            .await
            .map_err(|e| e.to_string())?;
        let intent = PaymentIntent {
            reference: eip712::session_ref(&s.id),
            token: usdc,
            recipient,
            net_amount: u128::from(s.net_micros),
            fee_amount: u128::from(s.fee_micros),
            deadline: s.expires_at.unix_seconds() as u64,
        };
        let sig = eip712::sign(&domain, intent.struct_hash(), &key).ok_or("signing failed")?;
        let payment = one_signature(intent, &domain, &key, router, usdc, chain::BUYERS[i % 3])?;
        let data = match (paying, s.deposit_address) {
            (Paying::Deposits, Some(to)) => transfer_calldata(&to, s.amount.micros()),
            (Paying::Deposits, None) => return Err("a session without a deposit address".into()),
            _ => stablepay_evm::calldata::pay(&intent, &sig),
        };
        calls.push((s.id, data, payment));
    }
    Ok(calls)
}

/// ERC-20 `transfer(to, amount)` calldata.
pub(crate) fn transfer_calldata(to: &Address, amount: u64) -> Vec<u8> {
    let mut data = vec![0xa9, 0x05, 0x9c, 0xbb];
    data.extend_from_slice(&[0u8; 12]);
    data.extend_from_slice(to.as_bytes());
    data.extend_from_slice(&[0u8; 24]);
    data.extend_from_slice(&amount.to_be_bytes());
    data
}

/// A one-signature payment of `intent` by the dev account `payer_index`.
fn one_signature(
    intent: PaymentIntent,
    router_domain: &eip712::Domain,
    operator_key: &[u8; 32],
    router: Address,
    usdc: Address,
    payer_index: usize,
) -> Result<OneSignaturePayment, String> {
    let key = chain::key_bytes(payer_index);
    let payer = eip191::address_of_private_key(&key).ok_or("payer key")?;
    let authorization = ReceiveAuthorization::paying(payer, router, &intent);
    let domain = TokenDomain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: 84532,
        token: usdc,
    };
    let payer_signature =
        eip191::sign_hash(&authorization.digest(&domain), &key).ok_or("signing failed")?;
    let operator_signature = eip712::sign(
        router_domain,
        intent.payer_struct_hash(&payer),
        operator_key,
    )
    .ok_or("signing failed")?;
    let cancel_signature = eip712::sign(
        router_domain,
        eip712::cancel_struct_hash(&intent.reference),
        operator_key,
    )
    .ok_or("signing failed")?;
    Ok(OneSignaturePayment {
        router,
        intent,
        operator_signature,
        payer,
        valid_before: intent.deadline,
        payer_signature,
        cancel_signature,
    })
}
