//! The write policy: the same idempotency protocol as an atomic write, each port call
//! committing on its own.

use super::*;

/// A `write` with an `Idempotency-Key` looks at the key before its handler and records
/// its answer after, in no transaction; a replay runs nothing; a duplicate that ran beside
/// it and stored first is the answer this request gives; a failure records nothing.
#[actix_web::test]
async fn a_write_looks_at_its_key_first_and_records_its_answer_after() {
    // (what the look finds, what the record finds) → (status, body, handler runs, records)
    let stored = |body: &str| StoredResponse {
        status: 201,
        body: body.into(),
    };
    let cases = [
        ("free, recorded", 201, "\"done\"", 1, 1),
        ("replay", 201, "\"first\"", 0, 0),
        ("superseded", 201, "\"first\"", 1, 1),
        ("fails", 400, "", 1, 0),
    ];
    for (case, status, body, runs, records) in cases {
        let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
        let first = stored("\"first\"");
        // The look beside the key's check; after a lost race, the stored answer.
        let looked = match case {
            "replay" => IdempotencyLook::Replay(first.clone()),
            _ => IdempotencyLook::Free,
        };
        let mut idempotency = MockIdempotencyStore::new();
        let winner = first.clone();
        idempotency
            .expect_lookup()
            .returning(move |_, _, _| Ok(IdempotencyLook::Replay(winner.clone())));
        let recorded = Arc::new(Mutex::new(Vec::new()));
        let kept = recorded.clone();
        idempotency
            .expect_record()
            .returning(move |_, _, response, _| {
                kept.lock().unwrap().push(response.body.clone());
                Ok(match case {
                    "superseded" => RecordOutcome::Superseded,
                    _ => RecordOutcome::Recorded,
                })
            });
        let ports = Ports {
            keys: keys_looking(context(), Arc::new(AtomicBool::new(false)), looked),
            idempotency,
            ..Ports::default()
        };
        let (state, store) = state(ports, &log, &in_tx);
        let ran = Arc::new(AtomicUsize::new(0));
        let handler = counting::<WriteCall, _>(&ran, move || {
            if case == "fails" {
                return Err(crate::error::ApiError::invalid_field("x", "is wrong"));
            }
            Reply::created(&"done")
        });
        let app = test::init_service(
            App::new()
                .app_data(state)
                .app_data(store)
                .route("/x", write(handler)),
        )
        .await;
        let req = request("POST").insert_header(("idempotency-key", "k1"));
        let res = test::call_service(&app, req.to_request()).await;
        assert_eq!(res.status().as_u16(), status, "{case}");
        let got = test::read_body(res).await;
        if status < 400 {
            assert_eq!(&got[..], body.as_bytes(), "{case}");
        }
        assert_eq!(ran.load(Ordering::SeqCst), runs, "{case}: handler runs");
        assert_eq!(recorded.lock().unwrap().len(), records, "{case}: records");
        assert_eq!(log.lines(), ["open writes"], "{case}: no transaction");
    }
}
