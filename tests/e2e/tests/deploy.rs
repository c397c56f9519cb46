//! `stablepay-api contracts deploy` (D27) on a chain of the test's own (1 s blocks): the
//! router, manager and deposit factory from the committed bytecode, waited on to depth 2;
//! `doctor` passes with the printed lines; a re-run naming them keeps them; a re-run
//! naming a contract with other roles is refused, naming its flag.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stablepay_e2e::*;

/// `KEY=value` lines of `out`.
fn lines(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn deployed_contracts_pass_the_doctor_and_a_re_run_keeps_them() {
    let chain = PrivateChain::start(Some(1)).await;
    let stack = Stack::start_with(StackOptions::on(&chain)).await;
    let info = chain.info();
    let deployer: [u8; 32] = rand::random();
    client_for(&info, &deployer).await;
    let deployer_key = (
        "STABLEPAY_DEPLOYER_KEY",
        format!("0x{}", hex::encode(deployer)),
    );
    let id = info.chain_id.to_string();
    let base = deploy_args(&info);
    let args = |extra: &[String]| -> Vec<String> { base.iter().chain(extra).cloned().collect() };
    let run = |a: Vec<String>| {
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        stack.run_to_exit(
            "stablepay-api",
            &refs,
            &[(deployer_key.0, deployer_key.1.clone())],
        )
    };

    let (ok, out, err) = run(args(&[]));
    assert!(ok, "deploy failed: {err}");
    let printed = lines(&out);
    let names: Vec<&str> = printed.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("STABLEPAY_CHECKOUT_ROUTER_{id}"),
            format!("STABLEPAY_SUBSCRIPTION_MANAGER_{id}"),
            format!("STABLEPAY_DEPOSIT_FACTORY_{id}"),
            format!("STABLEPAY_TREASURY_{id}"),
        ],
        "{out}"
    );
    assert!(err.contains("2 blocks deep"), "{err}");
    // New contracts, not the test chain's.
    assert_ne!(printed[0].1.to_lowercase(), info.router.to_lowercase());

    // The doctor passes with exactly what was printed.
    let config: Vec<(&str, String)> = printed
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    let (ok, out, err) = stack.run_to_exit("stablepay-api", &["doctor"], &config);
    assert!(ok, "doctor with the printed configuration: {out}{err}");
    assert!(
        out.contains(&format!("checkout router at {}", printed[0].1)),
        "{out}"
    );

    // A re-run naming them keeps them and prints the same lines.
    let named = [
        "--router".to_owned(),
        printed[0].1.clone(),
        "--subscription-manager".to_owned(),
        printed[1].1.clone(),
        "--deposit-factory".to_owned(),
        printed[2].1.clone(),
    ];
    let (ok, again, err) = run(args(&named));
    assert!(ok, "re-run: {err}");
    assert_eq!(lines(&again), printed);
    assert_eq!(err.matches(": kept").count(), 3, "{err}");
    assert!(
        !err.contains("deployed at"),
        "nothing deployed twice: {err}"
    );

    // Naming a contract whose roles differ from the ones asked for is refused, naming
    // its flag: here the router, asked for with another treasury.
    let other_treasury = format!("0x{}", hex::encode(rand::random::<[u8; 20]>()));
    let mut wrong: Vec<String> = base.clone();
    let at = wrong.iter().position(|a| a == "--treasury").unwrap();
    wrong[at + 1] = other_treasury;
    wrong.extend(["--router".to_owned(), printed[0].1.clone()]);
    let (ok, _, err) = run(wrong);
    assert!(!ok, "a router with another treasury was accepted");
    assert!(
        err.contains("--router") && err.contains("treasury()"),
        "{err}"
    );
}
