//! Contract behaviour and the adapter against the dev chains `cargo xtask test` starts
//! (anvil; addresses in the file named by STABLEPAY_TEST_CHAINS).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use ethers::middleware::SignerMiddleware;
use ethers::providers::{Http, Middleware, Provider};
use ethers::signers::{LocalWallet, Signer};
use ethers::types::{Address as H160Address, Bytes, U256};
use serde_json::Value;
use stablepay_domain::ports::ChainReader;
use stablepay_domain::rules::{eip191, eip712};
use stablepay_domain::{Address, BlockHash, ChainId, CheckoutSessionId, Signature, TxHash};
use stablepay_evm::bindings::checkout_router::{CheckoutRouter, CheckoutRouterErrors, Intent};
use stablepay_evm::bindings::subscription_manager::{
    SubscriptionManager, SubscriptionManagerErrors,
};
use stablepay_evm::bindings::test_token::TestToken;
use stablepay_evm::{from_h160, to_h160, EvmChain};

type Client = SignerMiddleware<Provider<Http>, LocalWallet>;

struct Chain {
    rpc: String,
    usdc: Address,
    usdt: Address,
    deposit_factory: Address,
    router: Address,
    manager: Address,
    treasury: Address,
    smart_wallet: Address,
    smart_wallet_owner: [u8; 32],
    operator: [u8; 32],
    keeper: String,
    buyers: Vec<String>,
}

fn key_bytes(hex_key: &str) -> [u8; 32] {
    let mut k = [0u8; 32];
    hex::decode_to_slice(hex_key.trim_start_matches("0x"), &mut k).unwrap();
    k
}

fn chain() -> Chain {
    let path = std::env::var("STABLEPAY_TEST_CHAINS")
        .expect("STABLEPAY_TEST_CHAINS is not set: run the tests through `cargo xtask test`");
    let env: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = &env["chains"]["84532"];
    let addr = |v: &Value| Address::parse(&v.as_str().unwrap().to_lowercase()).unwrap();
    Chain {
        rpc: c["rpc_url"].as_str().unwrap().to_owned(),
        usdc: addr(&c["usdc"]),
        usdt: addr(&c["usdt"]),
        deposit_factory: addr(&c["deposit_factory"]),
        router: addr(&c["checkout_router"]),
        manager: addr(&c["subscription_manager"]),
        treasury: addr(&c["treasury"]),
        smart_wallet: addr(&c["smart_wallet"]["address"]),
        smart_wallet_owner: key_bytes(c["smart_wallet"]["owner_private_key"].as_str().unwrap()),
        operator: key_bytes(env["operator_private_key"].as_str().unwrap()),
        keeper: env["keeper_private_key"].as_str().unwrap().to_owned(),
        buyers: env["buyers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["private_key"].as_str().unwrap().to_owned())
            .collect(),
    }
}

fn client(rpc: &str, key: &str) -> Arc<Client> {
    let provider = Provider::<Http>::try_from(rpc)
        .unwrap()
        .interval(Duration::from_millis(100));
    let wallet: LocalWallet = key
        .trim_start_matches("0x")
        .parse::<LocalWallet>()
        .unwrap()
        .with_chain_id(84532u64);
    Arc::new(SignerMiddleware::new(provider, wallet))
}

/// A fresh account with ETH for gas (anvil's `anvil_setBalance`) and `micros` of both dev
/// tokens: every test sends from its own key, so parallel tests never share a nonce.
async fn fresh_sender(c: &Chain, micros: u64) -> Arc<Client> {
    let key = eip712::session_ref(&CheckoutSessionId::generate());
    let sender = client(&c.rpc, &hex::encode(key));
    sender
        .provider()
        .request::<_, ()>(
            "anvil_setBalance",
            (sender.address(), U256::exp10(18).to_string()),
        )
        .await
        .unwrap();
    for token in [c.usdc, c.usdt].into_iter().filter(|_| micros > 0) {
        TestToken::new(to_h160(&token), sender.clone())
            .mint(sender.address(), U256::from(micros))
            .send()
            .await
            .unwrap()
            .await
            .unwrap();
    }
    sender
}

fn random_address() -> Address {
    Address::from_bytes(
        eip712::session_ref(&CheckoutSessionId::generate())[..20]
            .try_into()
            .unwrap(),
    )
}

/// The evm adapter on the test chain.
fn adapter(c: &Chain) -> EvmChain {
    EvmChain::new(
        &[(ChainId::BaseSepolia, c.rpc.clone())],
        Duration::from_secs(5),
    )
    .unwrap()
}

async fn now(client: &Client) -> u64 {
    client
        .get_block(ethers::types::BlockNumber::Latest)
        .await
        .unwrap()
        .unwrap()
        .timestamp
        .as_u64()
}

fn signed_intent(c: &Chain, intent: &eip712::PaymentIntent, key: &[u8; 32]) -> (Intent, Bytes) {
    let domain = eip712::Domain {
        name: eip712::ROUTER_NAME,
        chain_id: 84532,
        verifying_contract: c.router,
    };
    let sig = eip712::sign(&domain, intent.struct_hash(), key).unwrap();
    let on_chain = Intent {
        ref_: intent.reference,
        token: to_h160(&intent.token),
        recipient: to_h160(&intent.recipient),
        net_amount: U256::from(intent.net_amount),
        fee_amount: U256::from(intent.fee_amount),
        deadline: intent.deadline,
    };
    (on_chain, Bytes::from(sig.as_bytes().to_vec()))
}

#[tokio::test]
async fn the_router_splits_exactly_and_refuses_bad_intents() {
    let c = chain();
    let buyer = client(&c.rpc, &c.buyers[0]);
    let token = TestToken::new(to_h160(&c.usdc), buyer.clone());
    let router = CheckoutRouter::new(to_h160(&c.router), buyer.clone());
    token
        .approve(to_h160(&c.router), U256::MAX)
        .send()
        .await
        .unwrap()
        .await
        .unwrap();

    let recipient = random_address();
    let deadline = now(&buyer).await + 600;
    let intent = eip712::PaymentIntent {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        token: c.usdc,
        recipient,
        net_amount: 12_375_000,
        fee_amount: 125_000,
        deadline,
    };
    let (on_chain, sig) = signed_intent(&c, &intent, &c.operator);
    // The domain's EIP-712 digest is the contract's.
    let domain = eip712::Domain {
        name: eip712::ROUTER_NAME,
        chain_id: 84532,
        verifying_contract: c.router,
    };
    assert_eq!(
        router.hash_intent(on_chain.clone()).call().await.unwrap(),
        domain.digest(intent.struct_hash())
    );

    let buyer_before = token.balance_of(buyer.address()).call().await.unwrap();
    let treasury_before = token.balance_of(to_h160(&c.treasury)).call().await.unwrap();
    let receipt = router
        .pay(on_chain.clone(), sig.clone())
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1);
    assert_eq!(
        token.balance_of(to_h160(&recipient)).call().await.unwrap(),
        U256::from(12_375_000u64)
    );
    // The treasury is shared with concurrent tests: judge this payment by its own logs.
    let fetched = adapter(&c)
        .receipt(
            ChainId::BaseSepolia,
            TxHash::from_bytes(receipt.transaction_hash.0),
        )
        .await
        .unwrap()
        .unwrap();
    let payer = from_h160(buyer.address());
    assert!(fetched
        .transfers
        .iter()
        .any(|t| t.from == payer && t.to == c.treasury && t.value == 125_000));
    assert!(
        token.balance_of(to_h160(&c.treasury)).call().await.unwrap() >= treasury_before + 125_000
    );
    assert_eq!(
        buyer_before - token.balance_of(buyer.address()).call().await.unwrap(),
        U256::from(12_500_000u64)
    );

    // The adapter decodes the receipt: the CheckoutPaid event and both Transfer legs.
    let evm = adapter(&c);
    let tx = TxHash::from_bytes(receipt.transaction_hash.0);
    let r = evm
        .receipt(ChainId::BaseSepolia, tx)
        .await
        .unwrap()
        .unwrap();
    assert!(r.succeeded);
    assert_eq!(r.checkout_paid.len(), 1);
    let paid = &r.checkout_paid[0];
    assert_eq!(
        (paid.router, paid.reference, paid.recipient, paid.token),
        (c.router, intent.reference, recipient, c.usdc)
    );
    assert_eq!(
        (paid.net_amount, paid.fee_amount, paid.payer),
        (12_375_000, 125_000, from_h160(buyer.address()))
    );
    let legs: Vec<(Address, u128)> = r.transfers.iter().map(|t| (t.to, t.value)).collect();
    assert!(legs.contains(&(recipient, 12_375_000)) && legs.contains(&(c.treasury, 125_000)));
    assert!(evm.block_number(ChainId::BaseSepolia).await.unwrap() >= r.block_number);
    // The block's time by its hash is the header's timestamp, the same when asked again
    // (then from the adapter's memo); a hash the node does not know is unknown.
    let header = Provider::<Http>::try_from(c.rpc.as_str())
        .unwrap()
        .get_block(receipt.block_hash.unwrap())
        .await
        .unwrap()
        .unwrap();
    let mined = evm
        .block_time(ChainId::BaseSepolia, r.block_hash)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(mined.unix_seconds(), header.timestamp.as_u64() as i64);
    assert_eq!(
        evm.block_time(ChainId::BaseSepolia, r.block_hash)
            .await
            .unwrap(),
        Some(mined)
    );
    assert_eq!(
        evm.block_time(ChainId::BaseSepolia, BlockHash::from_bytes([7; 32]))
            .await
            .unwrap(),
        None
    );
    assert!(evm
        .receipt(ChainId::BaseSepolia, TxHash::from_bytes([7; 32]))
        .await
        .unwrap()
        .is_none());

    let revert_of = |e: ethers::contract::ContractError<Client>| {
        e.decode_contract_revert::<CheckoutRouterErrors>()
    };
    // A reused ref.
    let err = router.pay(on_chain, sig).call().await.unwrap_err();
    assert!(matches!(
        revert_of(err),
        Some(CheckoutRouterErrors::RefAlreadyUsed(_))
    ));
    // A signature not made by the operator.
    let fresh = eip712::PaymentIntent {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        ..intent
    };
    let (on_chain, bad_sig) = signed_intent(&c, &fresh, &key_bytes(&c.buyers[0]));
    let err = router.pay(on_chain, bad_sig).call().await.unwrap_err();
    assert!(matches!(
        revert_of(err),
        Some(CheckoutRouterErrors::InvalidSignature(_))
    ));
    // A tampered amount breaks the operator's signature too.
    let (mut tampered, sig) = signed_intent(&c, &fresh, &c.operator);
    tampered.fee_amount = U256::zero();
    let err = router.pay(tampered, sig).call().await.unwrap_err();
    assert!(matches!(
        revert_of(err),
        Some(CheckoutRouterErrors::InvalidSignature(_))
    ));
    // An expired deadline.
    let expired = eip712::PaymentIntent {
        deadline: now(&buyer).await - 1,
        ..fresh
    };
    let (on_chain, sig) = signed_intent(&c, &expired, &c.operator);
    let err = router.pay(on_chain, sig).call().await.unwrap_err();
    assert!(matches!(
        revert_of(err),
        Some(CheckoutRouterErrors::Expired(_))
    ));
}

/// A fresh account with ETH and 1,000,000 test USDC (the dev token's mint is public), so
/// tests never share a nonce.
async fn funded(c: &Chain) -> Arc<Client> {
    let key: [u8; 32] = rand_key();
    let who = client(&c.rpc, &format!("0x{}", hex::encode(key)));
    who.provider()
        .request::<_, Value>("anvil_setBalance", (who.address(), U256::exp10(20)))
        .await
        .unwrap();
    TestToken::new(to_h160(&c.usdc), who.clone())
        .mint(who.address(), U256::from(1_000_000_000_000u64))
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    who
}

fn rand_key() -> [u8; 32] {
    eip712::session_ref(&CheckoutSessionId::generate())
}

/// `createPlan` from `merchant`; returns the plan id (PlanCreated's first topic).
async fn create_plan(
    c: &Chain,
    merchant: &Arc<Client>,
    recipient: &Address,
    amount: u64,
    interval: u64,
) -> U256 {
    let manager = SubscriptionManager::new(to_h160(&c.manager), merchant.clone());
    let receipt = manager
        .create_plan(
            to_h160(&c.usdc),
            to_h160(recipient),
            U256::from(amount),
            interval,
        )
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    receipt
        .logs
        .iter()
        .find_map(|l| (l.topics.len() > 1).then(|| U256::from_big_endian(l.topics[1].as_bytes())))
        .unwrap()
}

#[tokio::test]
async fn the_adapter_reads_plans_and_unknown_ids_are_none() {
    let c = chain();
    let merchant = funded(&c).await;
    let recipient = random_address();
    let plan_id = create_plan(&c, &merchant, &recipient, 24_900_000, 2_592_000).await;
    let adapter = adapter(&c);
    let plan = adapter
        .subscription_plan(ChainId::BaseSepolia, c.manager, plan_id.as_u128())
        .await
        .unwrap()
        .expect("the plan exists");
    assert_eq!(
        (
            plan.creator,
            plan.token,
            plan.recipient,
            plan.amount,
            plan.interval_seconds
        ),
        (
            from_h160(merchant.address()),
            c.usdc,
            recipient,
            24_900_000,
            2_592_000
        )
    );
    let unknown = adapter
        .subscription_plan(ChainId::BaseSepolia, c.manager, 1 << 100)
        .await
        .unwrap();
    assert_eq!(unknown, None);
}

/// A new plan (`amount` 5 USDC every `interval` s, to a fresh recipient) and a
/// subscription to it paying a 0.05 fee; returns (manager as subscriber, subscription id,
/// recipient).
async fn subscribe_to_new_plan(
    c: &Chain,
    merchant: &Arc<Client>,
    subscriber: &Arc<Client>,
    interval: u64,
) -> (SubscriptionManager<Client>, U256, Address, TxHash) {
    let recipient = random_address();
    let plan_id = create_plan(c, merchant, &recipient, 5_000_000, interval).await;
    TestToken::new(to_h160(&c.usdc), subscriber.clone())
        .approve(to_h160(&c.manager), U256::MAX)
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let intent = eip712::SubscribeIntent {
        plan_id: plan_id.as_u128(),
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        fee_amount: 50_000,
        deadline: now(subscriber).await + 600,
    };
    let domain = eip712::Domain {
        name: eip712::SUBSCRIPTIONS_NAME,
        chain_id: 84532,
        verifying_contract: c.manager,
    };
    let sig = eip712::sign(&domain, intent.struct_hash(), &c.operator).unwrap();
    let as_subscriber = SubscriptionManager::new(to_h160(&c.manager), subscriber.clone());
    let receipt = as_subscriber
        .subscribe(
            plan_id,
            intent.reference,
            U256::from(50_000u64),
            intent.deadline,
            Bytes::from(sig.as_bytes().to_vec()),
        )
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    // Subscribed(subscriptionId indexed, ...) is the first log of the manager.
    let sub_id = receipt
        .logs
        .iter()
        .find(|l| l.address == to_h160(&c.manager))
        .map(|l| U256::from_big_endian(l.topics[1].as_bytes()))
        .unwrap();
    let tx = TxHash::from_bytes(receipt.transaction_hash.0);
    (as_subscriber, sub_id, recipient, tx)
}

async fn usdc_of(c: &Chain, by: &Arc<Client>, who: &Address) -> U256 {
    TestToken::new(to_h160(&c.usdc), by.clone())
        .balance_of(to_h160(who))
        .call()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_keeper_back_after_missed_periods_charges_once_and_moves_to_the_next_period() {
    let c = chain();
    let (merchant, subscriber) = (funded(&c).await, funded(&c).await);
    let keeper = client(&c.rpc, &c.keeper);
    let (as_subscriber, sub_id, recipient, _) =
        subscribe_to_new_plan(&c, &merchant, &subscriber, 2).await;
    let (_, _, _, first_due, _) = as_subscriber.subscriptions(sub_id).call().await.unwrap();
    // The keeper is away for three periods (chain time passes three due dates).
    let mut waited = 0;
    while now(&subscriber).await < first_due + 2 * 2 + 1 {
        assert!(waited < 100, "the chain stopped");
        tokio::time::sleep(Duration::from_millis(200)).await;
        waited += 1;
    }
    let as_keeper = SubscriptionManager::new(to_h160(&c.manager), keeper.clone());
    let charged = as_keeper
        .charge(sub_id)
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let charged_at = keeper
        .get_block(charged.block_number.unwrap())
        .await
        .unwrap()
        .unwrap()
        .timestamp
        .as_u64();
    let (_, _, _, next, _) = as_subscriber.subscriptions(sub_id).call().await.unwrap();
    assert!(
        next > charged_at,
        "next charge {next} is after the charge ({charged_at})"
    );
    assert!(
        next <= charged_at + 2,
        "next charge stays on the period grid"
    );
    assert_eq!((next - first_due) % 2, 0, "the schedule keeps its anchor");
    // Only the current period was charged: the subscribe charge plus one.
    assert_eq!(
        usdc_of(&c, &merchant, &recipient).await,
        U256::from(2 * 4_950_000u64)
    );
    // Charging again right away is refused until the next due date.
    let err = as_keeper.charge(sub_id).call().await.unwrap_err();
    assert!(matches!(
        err.decode_contract_revert::<SubscriptionManagerErrors>(),
        Some(SubscriptionManagerErrors::NotDue(_))
    ));
}

#[tokio::test]
async fn a_charge_before_it_is_due_reverts() {
    let c = chain();
    let merchant = client(&c.rpc, &c.buyers[2]);
    let subscriber = client(&c.rpc, &c.buyers[1]);
    let keeper = client(&c.rpc, &c.keeper);
    let (as_subscriber, sub_id, recipient, _) =
        subscribe_to_new_plan(&c, &merchant, &subscriber, 3600).await;
    assert_eq!(
        usdc_of(&c, &merchant, &recipient).await,
        U256::from(4_950_000u64)
    );
    let as_keeper = SubscriptionManager::new(to_h160(&c.manager), keeper.clone());
    let err = as_keeper.charge(sub_id).call().await.unwrap_err();
    assert!(matches!(
        err.decode_contract_revert::<SubscriptionManagerErrors>(),
        Some(SubscriptionManagerErrors::NotDue(_))
    ));
    // Only the keeper may charge.
    let err = as_subscriber.charge(sub_id).call().await.unwrap_err();
    assert!(matches!(
        err.decode_contract_revert::<SubscriptionManagerErrors>(),
        Some(SubscriptionManagerErrors::NotKeeper(_))
    ));
}

#[tokio::test]
async fn erc1271_smart_wallets_are_checked_on_chain() {
    let c = chain();
    let evm = adapter(&c);
    let message = b"stablepay wallet verification";
    let hash = eip191::hash_message(message);
    let by_owner = eip191::sign(message, &c.smart_wallet_owner).unwrap();
    let by_other = eip191::sign(message, &[5u8; 32]).unwrap();
    assert!(evm
        .is_contract(ChainId::BaseSepolia, c.smart_wallet)
        .await
        .unwrap());
    assert!(!evm
        .is_contract(ChainId::BaseSepolia, random_address())
        .await
        .unwrap());
    assert!(evm
        .is_valid_signature(ChainId::BaseSepolia, c.smart_wallet, hash, &by_owner)
        .await
        .unwrap());
    assert!(!evm
        .is_valid_signature(ChainId::BaseSepolia, c.smart_wallet, hash, &by_other)
        .await
        .unwrap());
    assert!(!evm
        .is_valid_signature(
            ChainId::BaseSepolia,
            c.smart_wallet,
            hash,
            &Signature::from_bytes(vec![1, 2, 3])
        )
        .await
        .unwrap());
    // A chain without an RPC is "not configured", never a verdict.
    assert!(matches!(
        evm.is_contract(ChainId::Base, c.smart_wallet).await,
        Err(stablepay_domain::ports::ChainError::NotConfigured(8453))
    ));
    // An unreachable node is "unavailable" within the timeout.
    let down = EvmChain::new(
        &[(ChainId::BaseSepolia, "http://127.0.0.1:1".into())],
        Duration::from_secs(2),
    )
    .unwrap();
    assert!(matches!(
        down.block_number(ChainId::BaseSepolia).await,
        Err(stablepay_domain::ports::ChainError::Unavailable(_))
    ));
    let _ = H160Address::zero();
}

#[tokio::test]
async fn the_adapter_decodes_subscription_events_from_receipts_and_logs() {
    use stablepay_domain::ports::SubscriptionEvent;
    let c = chain();
    let (merchant, subscriber) = (funded(&c).await, funded(&c).await);
    let (as_subscriber, sub_id, _, subscribed_tx) =
        subscribe_to_new_plan(&c, &merchant, &subscriber, 3600).await;
    let adapter = adapter(&c);
    let chain_id = ChainId::BaseSepolia;
    let receipt = adapter
        .receipt(chain_id, subscribed_tx)
        .await
        .unwrap()
        .unwrap();
    let subscribed_in = receipt.block_number;
    let sub = sub_id.as_u128();
    let who = from_h160(subscriber.address());
    let events: Vec<_> = receipt
        .subscription_events
        .iter()
        .map(|l| (l.manager, l.event.clone()))
        .collect();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(
        &events[0],
        (m, SubscriptionEvent::Subscribed { subscription_id, subscriber: s, fee_amount: 50_000, .. })
            if *m == c.manager && *subscription_id == sub && *s == who
    ));
    assert!(matches!(
        &events[1],
        (_, SubscriptionEvent::Charged { subscription_id, net_amount: 4_950_000, fee_amount: 50_000, next_charge_at, .. })
            if *subscription_id == sub && *next_charge_at > 0
    ));
    // The subscriber cancels on chain; the log range names both transactions.
    let canceled = as_subscriber
        .cancel(sub_id)
        .send()
        .await
        .unwrap()
        .await
        .unwrap()
        .unwrap();
    let cancel_tx = TxHash::from_bytes(canceled.transaction_hash.0);
    let receipt = adapter.receipt(chain_id, cancel_tx).await.unwrap().unwrap();
    assert_eq!(
        receipt.subscription_events[0].event,
        SubscriptionEvent::Canceled {
            subscription_id: sub,
            by: who
        }
    );
    let logged = adapter
        .subscription_logs(chain_id, c.manager, subscribed_in, receipt.block_number)
        .await
        .unwrap();
    let hashes: Vec<TxHash> = logged.iter().map(|l| l.tx_hash).collect();
    assert!(
        hashes.contains(&subscribed_tx) && hashes.contains(&cancel_tx),
        "{hashes:?}"
    );
}

mod deposits;
mod one_signature;
