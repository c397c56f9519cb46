//! The atomic-write policy: replays, the chain read before the transaction, and races
//! lost at the key.

use super::*;

/// An idempotent atomic write whose key already holds an answer replays it: no handler
/// code runs, no transaction begins, nothing is recorded.
#[actix_web::test]
async fn a_replayed_idempotent_create_runs_no_handler_code() {
    let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
    let mut idempotency = MockIdempotencyStore::new();
    idempotency.expect_lookup().never();
    idempotency.expect_record().never();
    let replay = IdempotencyLook::Replay(StoredResponse {
        status: 201,
        body: r#"{"id":"cs_1"}"#.into(),
    });
    let ports = Ports {
        keys: keys_looking(context(), Arc::new(AtomicBool::new(false)), replay),
        idempotency,
        ..Ports::default()
    };
    let (state, store) = state(ports, &log, &in_tx);
    let ran = Arc::new(AtomicUsize::new(0));
    let app = test::init_service(App::new().app_data(state).app_data(store).route(
        "/x",
        atomic_write(counting::<WriteCall, _>(&ran, || {
            Ok(InTransaction::new(|_call: WriteCall| async {
                Reply::ok(&"written")
            }))
        })),
    ))
    .await;
    // Twice: by a key first seen, and by a known one (the same statement either way).
    for _ in 0..2 {
        let req = request("POST").insert_header(("idempotency-key", "k1"));
        let res = test::call_service(&app, req.to_request()).await;
        assert_eq!(res.status(), StatusCode::CREATED);
        assert_eq!(res.headers().get("idempotency-replayed").unwrap(), "true");
        let body = test::read_body(res).await;
        assert_eq!(&body[..], br#"{"id":"cs_1"}"#);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert!(
        !log.lines().iter().any(|l| l == "begin"),
        "{:?}",
        log.lines()
    );
}

/// An atomic write's first step, where chain reads belong, runs before its transaction
/// begins; its `InTransaction` runs inside it, and the transaction commits with the answer.
#[actix_web::test]
async fn a_chain_read_never_runs_inside_an_open_transaction() {
    let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
    let mut idempotency = MockIdempotencyStore::new();
    idempotency.expect_lookup().never();
    idempotency
        .expect_record()
        .times(1)
        .returning(|_, _, _, _| Ok(RecordOutcome::Recorded));
    let ports = Ports {
        keys: keys(context(), Arc::new(AtomicBool::new(false))),
        idempotency,
        ..Ports::default()
    };
    let (state, store) = state(ports, &log, &in_tx);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (first, step) = (seen.clone(), in_tx.clone());
    let app = test::init_service(App::new().app_data(state).app_data(store).route(
        "/x",
        atomic_write(move |_call: WriteCall| {
            let (seen, open) = (first.clone(), step.clone());
            async move {
                // Stands for the chain read of a subscription create.
                seen.lock()
                    .unwrap()
                    .push(("read", open.load(Ordering::SeqCst)));
                Ok(InTransaction::new(move |_call: WriteCall| async move {
                    seen.lock()
                        .unwrap()
                        .push(("write", open.load(Ordering::SeqCst)));
                    Reply::created(&"written")
                }))
            }
        }),
    ))
    .await;
    let req = request("POST").insert_header(("idempotency-key", "k2"));
    let res = test::call_service(&app, req.to_request()).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(*seen.lock().unwrap(), [("read", false), ("write", true)]);
    assert_eq!(log.lines(), ["open atomic", "begin", "commit"]);
}

/// One idempotent create (key `k`) through an atomic write whose `InTransaction` answers 201,
/// against `idempotency`; the response and what the units did.
async fn create_against(
    idempotency: MockIdempotencyStore,
) -> (actix_web::dev::ServiceResponse, Vec<String>) {
    let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
    let ports = Ports {
        keys: keys(context(), Arc::new(AtomicBool::new(false))),
        idempotency,
        ..Ports::default()
    };
    let (state, store) = state(ports, &log, &in_tx);
    let app = test::init_service(App::new().app_data(state).app_data(store).route(
        "/x",
        atomic_write(|_call: WriteCall| async {
            Ok(InTransaction::new(|_call: WriteCall| async {
                Reply::created(&"ours")
            }))
        }),
    ))
    .await;
    let req = request("POST").insert_header(("idempotency-key", "k"));
    let res = test::call_service(&app, req.to_request()).await;
    (res, log.lines())
}

/// A duplicate that got past the look and committed first: this request's writes roll
/// back and it answers with the duplicate's stored reply.
#[actix_web::test]
async fn a_create_that_loses_the_race_at_the_key_rolls_back_and_replays_the_winner() {
    let mut idempotency = MockIdempotencyStore::new();
    // Free at the look beside the key's check; the winner's answer when read after.
    idempotency.expect_lookup().times(1).returning(|_, _, _| {
        Ok(IdempotencyLook::Replay(StoredResponse {
            status: 201,
            body: r#"{"id":"cs_winner"}"#.into(),
        }))
    });
    idempotency
        .expect_record()
        .times(1)
        .returning(|_, _, _, _| Ok(RecordOutcome::Superseded));
    let (res, units) = create_against(idempotency).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(res.headers().get("idempotency-replayed").unwrap(), "true");
    assert_eq!(&test::read_body(res).await[..], br#"{"id":"cs_winner"}"#);
    assert_eq!(units, ["open atomic", "begin", "rollback"]);
}

/// A duplicate storing its answer right now: this request's writes roll back and it gets
/// 409 at once (D14).
#[actix_web::test]
async fn a_create_meeting_a_duplicate_in_flight_rolls_back_with_409() {
    let mut idempotency = MockIdempotencyStore::new();
    idempotency.expect_lookup().never();
    idempotency
        .expect_record()
        .times(1)
        .returning(|_, _, _, _| Ok(RecordOutcome::InFlight));
    let (res, units) = create_against(idempotency).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert_eq!(units, ["open atomic", "begin", "rollback"]);
}
