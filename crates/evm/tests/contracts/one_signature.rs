//! One-signature payments (EIP-3009, D23): the dev USDC is FiatToken-like, and the
//! router's `payWithAuthorization` pays a session from a payer that holds no ETH.

use ethers::utils::keccak256;
use stablepay_domain::rules::eip3009::{ReceiveAuthorization, TokenDomain};

use super::*;

/// A fresh payer with `micros` of USDC and no ETH; returns its key and address.
async fn payer_without_eth(c: &Chain, minter: &Arc<Client>, micros: u64) -> ([u8; 32], Address) {
    let key = eip712::session_ref(&CheckoutSessionId::generate());
    let address = eip191::address_of_private_key(&key).unwrap();
    TestToken::new(to_h160(&c.usdc), minter.clone())
        .mint(to_h160(&address), U256::from(micros))
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    (key, address)
}

fn usdc_domain(c: &Chain) -> TokenDomain {
    TokenDomain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: 84532,
        token: c.usdc,
    }
}

fn signed(auth: &ReceiveAuthorization, c: &Chain, key: &[u8; 32]) -> Bytes {
    let sig = eip191::sign_hash(&auth.digest(&usdc_domain(c)), key).unwrap();
    Bytes::from(sig.as_bytes().to_vec())
}

/// The intent bound to `payer`, signed by `key` for `payWithAuthorization`.
fn payer_intent(
    c: &Chain,
    intent: &eip712::PaymentIntent,
    payer: Address,
    key: &[u8; 32],
) -> (Intent, Bytes) {
    let (on_chain, _) = signed_intent(c, intent, key);
    let domain = eip712::Domain {
        name: eip712::ROUTER_NAME,
        chain_id: 84532,
        verifying_contract: c.router,
    };
    let sig = eip712::sign(&domain, intent.payer_struct_hash(&payer), key).unwrap();
    (on_chain, Bytes::from(sig.as_bytes().to_vec()))
}

/// The revert string of a failed call (FiatToken's `require` messages).
fn reason(e: ethers::contract::ContractError<Client>) -> String {
    e.decode_revert::<String>()
        .unwrap_or_else(|| format!("no revert string: {e:?}"))
}

#[tokio::test]
async fn the_dev_usdc_has_fiat_tokens_domain_and_accepts_an_outside_librarys_signature() {
    let c = chain();
    let relayer = fresh_sender(&c, 0).await;
    let token = TestToken::new(to_h160(&c.usdc), relayer.clone());
    assert_eq!(token.name().call().await.unwrap(), "USD Coin");
    assert_eq!(token.version().call().await.unwrap(), "2");
    assert_eq!(
        token.domain_separator().call().await.unwrap(),
        usdc_domain(&c).separator()
    );
    // Vectors signed by Python eth-account (contracts/vectors/eip3009.json) for anvil's
    // first deployment, which is where the dev chain's USDC lives.
    let file: Value =
        serde_json::from_str(include_str!("../../../../contracts/vectors/eip3009.json")).unwrap();
    let vector_token = Address::parse(
        &file["domain"]["verifyingContract"]
            .as_str()
            .unwrap()
            .to_lowercase(),
    )
    .unwrap();
    assert_eq!(
        vector_token, c.usdc,
        "the dev USDC is anvil's first deployment"
    );
    let v = &file["vectors"]["transferWithAuthorization"];
    let m = &v["typedData"]["message"];
    let h160 = |v: &Value| v.as_str().unwrap().parse::<H160Address>().unwrap();
    let uint = |v: &Value| U256::from_dec_str(v.as_str().unwrap()).unwrap();
    let nonce: [u8; 32] = hex::decode(m["nonce"].as_str().unwrap().trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap();
    let sig = Bytes::from(
        hex::decode(v["signature"].as_str().unwrap().trim_start_matches("0x")).unwrap(),
    );
    let to_before = token.balance_of(h160(&m["to"])).call().await.unwrap();
    let transfer = token.transfer_with_authorization(
        h160(&m["from"]),
        h160(&m["to"]),
        uint(&m["value"]),
        uint(&m["validAfter"]),
        uint(&m["validBefore"]),
        nonce,
        sig,
    );
    let receipt = transfer.send().await.unwrap().await.unwrap().unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1);
    assert_eq!(
        token.balance_of(h160(&m["to"])).call().await.unwrap() - to_before,
        uint(&m["value"])
    );
    assert!(token
        .authorization_state(h160(&m["from"]), nonce)
        .call()
        .await
        .unwrap());
    // Used once: a replay reverts.
    assert!(reason(transfer.call().await.unwrap_err()).contains("used or canceled"));
}

#[tokio::test]
async fn one_signature_pays_and_splits_exactly_while_the_payer_holds_no_eth() {
    let c = chain();
    let relayer = fresh_sender(&c, 0).await;
    let (payer_key, payer) = payer_without_eth(&c, &relayer, 50_000_000).await;
    let token = TestToken::new(to_h160(&c.usdc), relayer.clone());
    let router = CheckoutRouter::new(to_h160(&c.router), relayer.clone());
    let deadline = now(&relayer).await + 600;
    let recipient = random_address();
    let intent = eip712::PaymentIntent {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        token: c.usdc,
        recipient,
        net_amount: 12_375_000,
        fee_amount: 125_000,
        deadline,
    };
    let (on_chain, operator_sig) = payer_intent(&c, &intent, payer, &c.operator);
    let auth = ReceiveAuthorization {
        from: payer,
        to: c.router,
        value: 12_500_000,
        valid_after: 0,
        valid_before: deadline,
        nonce: intent.reference,
    };
    let pay = router.pay_with_authorization(
        on_chain.clone(),
        operator_sig.clone(),
        to_h160(&payer),
        U256::from(deadline),
        signed(&auth, &c, &payer_key),
    );
    let receipt = pay.send().await.unwrap().await.unwrap().unwrap();
    assert_eq!(receipt.status.unwrap().as_u64(), 1);
    eprintln!("payWithAuthorization gasUsed {}", receipt.gas_used.unwrap());
    assert_eq!(
        token.balance_of(to_h160(&recipient)).call().await.unwrap(),
        U256::from(12_375_000u64)
    );
    assert_eq!(
        token.balance_of(to_h160(&payer)).call().await.unwrap(),
        U256::from(37_500_000u64)
    );
    assert_eq!(
        token.balance_of(to_h160(&c.router)).call().await.unwrap(),
        U256::zero(),
        "nothing stays in the router"
    );
    assert!(relayer
        .get_balance(to_h160(&payer), None)
        .await
        .unwrap()
        .is_zero());
    // The same CheckoutPaid as `pay`, naming the payer; the fee leg reaches the treasury.
    let r = adapter(&c)
        .receipt(
            ChainId::BaseSepolia,
            TxHash::from_bytes(receipt.transaction_hash.0),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r.checkout_paid.len(), 1);
    let paid = &r.checkout_paid[0];
    assert_eq!(
        (
            paid.reference,
            paid.payer,
            paid.recipient,
            paid.net_amount,
            paid.fee_amount
        ),
        (intent.reference, payer, recipient, 12_375_000, 125_000)
    );
    assert!(r
        .transfers
        .iter()
        .any(|t| t.to == c.treasury && t.value == 125_000));

    // The same signature again: the router's ref is spent (D30), before the token is asked.
    assert!(matches!(
        pay.call()
            .await
            .unwrap_err()
            .decode_contract_revert::<CheckoutRouterErrors>(),
        Some(CheckoutRouterErrors::RefAlreadyUsed(_))
    ));
    // And a router `pay` of the same session with an intent fetched before: the same ref.
    let earlier = signed_intent(&c, &intent, &c.operator);
    let err = router.pay(earlier.0, earlier.1).call().await.unwrap_err();
    assert!(matches!(
        err.decode_contract_revert::<CheckoutRouterErrors>(),
        Some(CheckoutRouterErrors::RefAlreadyUsed(_))
    ));

    // The router hashes the payer-bound intent as the service does.
    let router_domain = eip712::Domain {
        name: eip712::ROUTER_NAME,
        chain_id: 84532,
        verifying_contract: c.router,
    };
    assert_eq!(
        router
            .hash_payer_intent(on_chain.clone(), to_h160(&payer))
            .call()
            .await
            .unwrap(),
        router_domain.digest(intent.payer_struct_hash(&payer))
    );
    // The ref reused by a second wallet: the operator's signature names the first payer,
    // so it pays nothing; nor does the intent handed out for approve + pay.
    let (other_key, other) = payer_without_eth(&c, &relayer, 50_000_000).await;
    let by_other = ReceiveAuthorization {
        from: other,
        ..auth
    };
    let (_, transaction_sig) = signed_intent(&c, &intent, &c.operator);
    for sig in [operator_sig.clone(), transaction_sig] {
        let err = router
            .pay_with_authorization(
                on_chain.clone(),
                sig,
                to_h160(&other),
                U256::from(deadline),
                signed(&by_other, &c, &other_key),
            )
            .call()
            .await
            .unwrap_err();
        assert!(matches!(
            err.decode_contract_revert::<CheckoutRouterErrors>(),
            Some(CheckoutRouterErrors::InvalidSignature(_))
        ));
    }
    assert_eq!(
        token.balance_of(to_h160(&other)).call().await.unwrap(),
        U256::from(50_000_000u64),
        "the second wallet kept its money"
    );

    // A session `pay` already paid cannot be paid again by signature.
    let buyer = fresh_sender(&c, 50_000_000).await;
    TestToken::new(to_h160(&c.usdc), buyer.clone())
        .approve(to_h160(&c.router), U256::MAX)
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let paid = eip712::PaymentIntent {
        reference: eip712::session_ref(&CheckoutSessionId::generate()),
        ..intent
    };
    let (on_chain, operator_sig) = signed_intent(&c, &paid, &c.operator);
    CheckoutRouter::new(to_h160(&c.router), buyer.clone())
        .pay(on_chain.clone(), operator_sig.clone())
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    let again = ReceiveAuthorization {
        nonce: paid.reference,
        ..auth
    };
    let (on_chain, operator_sig) = payer_intent(&c, &paid, payer, &c.operator);
    let err = router
        .pay_with_authorization(
            on_chain,
            operator_sig,
            to_h160(&payer),
            U256::from(deadline),
            signed(&again, &c, &payer_key),
        )
        .call()
        .await
        .unwrap_err();
    assert!(matches!(
        err.decode_contract_revert::<CheckoutRouterErrors>(),
        Some(CheckoutRouterErrors::RefAlreadyUsed(_))
    ));
}

#[tokio::test]
async fn bad_authorizations_move_no_money() {
    let c = chain();
    let relayer = fresh_sender(&c, 0).await;
    let (payer_key, payer) = payer_without_eth(&c, &relayer, 50_000_000).await;
    let token = TestToken::new(to_h160(&c.usdc), relayer.clone());
    let router = CheckoutRouter::new(to_h160(&c.router), relayer.clone());
    let recipient = random_address();
    let t = now(&relayer).await;
    let attempt = |valid_before: u64, signer: [u8; 32]| {
        let intent = eip712::PaymentIntent {
            reference: eip712::session_ref(&CheckoutSessionId::generate()),
            token: c.usdc,
            recipient,
            net_amount: 9_000_000,
            fee_amount: 1_000_000,
            deadline: t + 600,
        };
        let auth = ReceiveAuthorization {
            from: payer,
            to: c.router,
            value: 10_000_000,
            valid_after: 0,
            valid_before,
            nonce: intent.reference,
        };
        let (on_chain, operator_sig) = payer_intent(&c, &intent, payer, &c.operator);
        let call = router.pay_with_authorization(
            on_chain,
            operator_sig,
            to_h160(&payer),
            U256::from(valid_before),
            signed(&auth, &c, &signer),
        );
        (intent, auth, call)
    };
    // An expired authorization.
    let (_, _, call) = attempt(t - 1, payer_key);
    assert!(reason(call.call().await.unwrap_err()).contains("expired"));
    // Signed by someone else than the payer.
    let (_, _, call) = attempt(t + 600, [0x42; 32]);
    assert!(reason(call.call().await.unwrap_err()).contains("invalid signature"));
    // Front-run: the payer's nonce (the session ref) is spent by a transfer elsewhere
    // first; the router's receive then fails and moves nothing.
    let (intent, _, call) = attempt(t + 600, payer_key);
    let elsewhere = random_address();
    let type_hash = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
    );
    let struct_hash = keccak256(ethers::abi::encode(&[
        ethers::abi::Token::FixedBytes(type_hash.to_vec()),
        ethers::abi::Token::Address(to_h160(&payer)),
        ethers::abi::Token::Address(to_h160(&elsewhere)),
        ethers::abi::Token::Uint(U256::from(1u64)),
        ethers::abi::Token::Uint(U256::zero()),
        ethers::abi::Token::Uint(U256::from(t + 600)),
        ethers::abi::Token::FixedBytes(intent.reference.to_vec()),
    ]));
    let digest = keccak256([&b"\x19\x01"[..], &usdc_domain(&c).separator(), &struct_hash].concat());
    let front = eip191::sign_hash(&digest, &payer_key).unwrap();
    token
        .transfer_with_authorization(
            to_h160(&payer),
            to_h160(&elsewhere),
            U256::from(1u64),
            U256::zero(),
            U256::from(t + 600),
            intent.reference,
            Bytes::from(front.as_bytes().to_vec()),
        )
        .send()
        .await
        .unwrap()
        .await
        .unwrap();
    assert!(reason(call.call().await.unwrap_err()).contains("used or canceled"));
    assert_eq!(
        token.balance_of(to_h160(&recipient)).call().await.unwrap(),
        U256::zero(),
        "no attempt paid the recipient"
    );
    assert_eq!(
        token.balance_of(to_h160(&payer)).call().await.unwrap(),
        U256::from(49_999_999u64),
        "only the front-running transfer moved the payer's money"
    );
}
