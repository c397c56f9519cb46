use super::*;
use crate::model::Currency;
use crate::rules::eip191;
use crate::services::fixtures::settlement::{addr, now, session, token};
use serde_json::Value;

const KEY: [u8; 32] = [0x42; 32];

fn domain() -> TokenDomain {
    TokenDomain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: session().chain.id(),
        token: token(),
    }
}

fn open_session() -> CheckoutSession {
    CheckoutSession {
        deposit_address: Some(addr(0xde)),
        ..session()
    }
}

/// A payment of `value` signed by `KEY` for what `asked` says, as the SDK builds it.
fn signed(asked: &Requirements, value: u128) -> PaymentPayload {
    let from = eip191::address_of_private_key(&KEY).unwrap();
    let authorization = TransferAuthorization {
        value,
        ..asked.authorization(from, now(), [7; 32]).unwrap()
    };
    let signature = eip191::sign_hash(&authorization.digest(&domain()), &KEY).unwrap();
    PaymentPayload::exact(asked.clone(), &authorization, &signature)
}

#[test]
fn a_session_asks_for_its_gross_at_its_deposit_address() {
    let s = open_session();
    let asked = requirements(&s, &domain(), now()).unwrap();
    assert_eq!(asked.scheme, "exact");
    assert_eq!(asked.network, format!("eip155:{}", s.chain.id()));
    assert_eq!(asked.amount, s.amount.micros().to_string());
    assert_eq!(asked.pay_to, addr(0xde).to_string());
    assert_eq!(asked.asset, token().to_string());
    assert_eq!(
        Value::Object(asked.extra.clone()),
        json!({"name": "USD Coin", "version": "2"})
    );
    // The session expires in 600 s: never asked to stay valid longer.
    assert_eq!(asked.max_timeout_seconds, 600);
    let later = now().plus_seconds(500);
    assert_eq!(
        requirements(&s, &domain(), later)
            .unwrap()
            .max_timeout_seconds,
        100
    );
}

#[test]
fn a_euro_session_asks_for_eurc_under_its_own_domain() {
    let s = CheckoutSession {
        currency: Currency::Eurc,
        ..open_session()
    };
    let eurc = TokenDomain {
        name: "EURC".into(),
        ..domain()
    };
    let asked = requirements(&s, &eurc, now()).unwrap();
    assert_eq!(asked.amount, s.amount.micros().to_string());
    assert_eq!(
        Value::Object(asked.extra.clone()),
        json!({"name": "EURC", "version": "2"})
    );
}

#[test]
fn a_payer_reads_the_token_domain_and_the_terms_from_the_requirements() {
    let asked = requirements(&open_session(), &domain(), now()).unwrap();
    assert_eq!(asked.token_domain().unwrap(), domain());
    let from = eip191::address_of_private_key(&KEY).unwrap();
    let a = asked.authorization(from, now(), [7; 32]).unwrap();
    assert_eq!((a.from, a.to), (from, addr(0xde)));
    assert_eq!(a.value.to_string(), asked.amount);
    assert_eq!(
        a.valid_before,
        u64::try_from(now().unix_seconds()).unwrap() + 600
    );

    let mut unnamed = asked.clone();
    unnamed.extra.remove("version");
    assert_eq!(
        unnamed.token_domain().unwrap_err(),
        "the requirements carry no extra.version"
    );
    let elsewhere = Requirements {
        network: "solana:mainnet".into(),
        ..asked.clone()
    };
    assert!(elsewhere.token_domain().is_err());
    let fractional = Requirements {
        amount: "12.5".into(),
        ..asked.clone()
    };
    assert!(fractional.authorization(from, now(), [7; 32]).is_err());
    let forever = Requirements {
        max_timeout_seconds: u64::MAX,
        ..asked.clone()
    };
    assert!(forever.authorization(from, now(), [7; 32]).is_err());
}

#[test]
fn only_open_payment_sessions_in_usdc_with_a_deposit_address_are_offered() {
    let d = domain();
    let cases = [
        (
            CheckoutSession {
                status: SessionStatus::Completed,
                ..open_session()
            },
            NotOffered::NotOpen,
        ),
        (
            CheckoutSession {
                session_mode: SessionMode::Subscription,
                ..open_session()
            },
            NotOffered::NotPaymentMode,
        ),
        (
            CheckoutSession {
                currency: Currency::Usdt,
                ..open_session()
            },
            NotOffered::NotFiatToken,
        ),
        (session(), NotOffered::NoDepositAddress),
        (
            CheckoutSession {
                amount_received_micros: open_session().amount.micros(),
                ..open_session()
            },
            NotOffered::BeingPaid,
        ),
    ];
    for (s, why) in cases {
        assert_eq!(requirements(&s, &d, now()), Err(why));
    }
    // Dust (or any short deposit) does not take x402 away: the gross is still asked.
    let dusted = CheckoutSession {
        amount_received_micros: 1,
        ..open_session()
    };
    assert_eq!(
        requirements(&dusted, &d, now()).unwrap().amount,
        open_session().amount.micros().to_string()
    );
    // Expired by the clock, and nearly expired.
    assert_eq!(
        requirements(&open_session(), &d, now().plus_seconds(600)),
        Err(NotOffered::NotOpen)
    );
    assert_eq!(
        requirements(&open_session(), &d, now().plus_seconds(590)),
        Err(NotOffered::TooLittleTime)
    );
}

#[test]
fn the_exact_payment_passes_and_names_its_payer() {
    let asked = requirements(&open_session(), &domain(), now()).unwrap();
    let payment = signed(&asked, open_session().amount.micros().into());
    let checked = check_payment(&payment, &asked, &domain(), now()).unwrap();
    assert!(checked.signed_by_eoa);
    assert_eq!(
        checked.authorization.from,
        eip191::address_of_private_key(&KEY).unwrap()
    );
    assert!(matches!(checked.signature.as_bytes()[64], 27 | 28));
}

#[test]
fn one_unit_more_or_less_is_refused() {
    let asked = requirements(&open_session(), &domain(), now()).unwrap();
    let gross = u128::from(open_session().amount.micros());
    for value in [gross - 1, gross + 1] {
        let mut payment = signed(&asked, value);
        assert_eq!(
            check_payment(&payment, &asked, &domain(), now()),
            Err(Invalid::Value)
        );
        // Claiming the asked amount in `accepted` changes nothing: the signed value counts.
        payment.accepted.amount = asked.amount.clone();
        assert_eq!(
            check_payment(&payment, &asked, &domain(), now()).map(|_| ()),
            Err(Invalid::Value)
        );
    }
}

#[test]
fn tampering_breaks_the_signature_and_wrong_terms_are_named() {
    let d = domain();
    let asked = requirements(&open_session(), &d, now()).unwrap();
    let good = signed(&asked, open_session().amount.micros().into());

    let mut other_nonce = good.clone();
    other_nonce.payload.authorization.nonce = format!("0x{}", "08".repeat(32));
    let checked = check_payment(&other_nonce, &asked, &d, now()).unwrap();
    // Recovers to someone else: only a contract payer could still be valid.
    assert!(!checked.signed_by_eoa);

    let mut elsewhere = good.clone();
    elsewhere.payload.authorization.to = addr(0x99).to_string();
    assert_eq!(
        check_payment(&elsewhere, &asked, &d, now()),
        Err(Invalid::Recipient)
    );

    let mut wrong_chain = good.clone();
    wrong_chain.accepted.network = "eip155:1".into();
    assert_eq!(
        check_payment(&wrong_chain, &asked, &d, now()),
        Err(Invalid::Network)
    );

    let mut v1 = good.clone();
    v1.x402_version = 1;
    assert_eq!(check_payment(&v1, &asked, &d, now()), Err(Invalid::Version));

    let mut other_token = good.clone();
    other_token.accepted.asset = addr(0x55).to_string();
    assert_eq!(
        check_payment(&other_token, &asked, &d, now()),
        Err(Invalid::Asset)
    );

    let mut not_yet = good.clone();
    not_yet.payload.authorization.valid_after = (now().unix_seconds() + 60).to_string();
    assert_eq!(
        check_payment(&not_yet, &asked, &d, now()),
        Err(Invalid::ValidAfter)
    );

    let mut expiring = good.clone();
    expiring.payload.authorization.valid_before = (now().unix_seconds() + 5).to_string();
    assert_eq!(
        check_payment(&expiring, &asked, &d, now()),
        Err(Invalid::ValidBefore)
    );

    // Valid far beyond what was asked: it would block the session's other payers.
    let mut lasting = good.clone();
    lasting.payload.authorization.valid_before = u64::MAX.to_string();
    assert_eq!(
        check_payment(&lasting, &asked, &d, now()),
        Err(Invalid::ValidBefore)
    );

    let mut garbled = good;
    garbled.payload.authorization.nonce = "0x1234".into();
    assert_eq!(
        check_payment(&garbled, &asked, &d, now()),
        Err(Invalid::Malformed("authorization.nonce"))
    );
}

#[test]
fn the_wire_shapes_are_the_sdks() {
    let asked = requirements(&open_session(), &domain(), now()).unwrap();
    let payment = signed(&asked, 1);
    let text = serde_json::to_value(&payment).unwrap();
    assert!(text["accepted"]["payTo"].is_string());
    assert!(text["accepted"]["maxTimeoutSeconds"].is_u64());
    assert!(text["payload"]["authorization"]["validBefore"].is_string());
    assert_eq!(text["x402Version"], 2);
    assert_eq!(text["payload"]["authorization"]["value"], "1");
    assert_eq!(
        text["payload"]["authorization"]["nonce"],
        format!("0x{}", "07".repeat(32))
    );
    let back: PaymentPayload = serde_json::from_value(text).unwrap();
    assert_eq!(back, payment);
    let settled = SettleResponse {
        success: false,
        error_reason: Some("x".into()),
        payer: None,
        transaction: String::new(),
        network: asked.network,
    };
    let v = serde_json::to_value(settled).unwrap();
    assert_eq!(v["errorReason"], "x");
    assert_eq!(v["transaction"], "");
    assert!(v["payer"].is_null());
}

#[test]
fn integers_are_read_as_json_schema_integers() {
    let asked = requirements(&open_session(), &domain(), now()).unwrap();
    let mut v = serde_json::to_value(signed(&asked, 1)).unwrap();
    v["accepted"]["maxTimeoutSeconds"] = json!(600.0);
    let back: PaymentPayload = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(back.accepted.max_timeout_seconds, 600);
    for bad in [json!(600.5), json!(-1), json!(9_223_372_036_854_775_808u64)] {
        v["accepted"]["maxTimeoutSeconds"] = bad.clone();
        assert!(
            serde_json::from_value::<PaymentPayload>(v.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn integer_fields_take_whole_floats_as_json_schema_does_and_refuse_fractions() {
    #[derive(serde::Deserialize)]
    struct Field {
        #[serde(deserialize_with = "json_integer")]
        n: u64,
    }
    let read = |json: &str| serde_json::from_str::<Field>(json).map(|f| f.n);
    assert_eq!(read(r#"{"n": 5}"#).unwrap(), 5);
    assert_eq!(read(r#"{"n": 5.0}"#).unwrap(), 5);
    // serde_json reads this one to within an ulp, not exactly: still whole.
    let parsed: f64 = serde_json::from_str("2045037038116383.0").unwrap();
    assert_ne!(parsed.fract(), 0.0, "the case this rule exists for");
    assert_eq!(
        read(r#"{"n": 2045037038116383.0}"#).unwrap(),
        2_045_037_038_116_383
    );
    assert_eq!(
        read(r#"{"n": 9223372036854775807}"#).unwrap(),
        9_223_372_036_854_775_807
    );
    for bad in [
        "5.5",
        "-1",
        "0.000001",
        "4294967296.5",
        "9223372036854775808",
        "1e300",
    ] {
        assert!(read(&format!(r#"{{"n": {bad}}}"#)).is_err(), "{bad}");
    }
}
