//! The read policy: where the key is checked, from what the reply says.

use super::*;

/// A read whose reply says the key stood is answered with no authentication, and the
/// key's use is recorded; one that says nothing (an empty page, a 404, a handler that read
/// nothing) is followed by the key's authentication, and the answer stands when the key
/// does. The first request by a key this process has not seen authenticates first.
#[actix_web::test]
async fn a_read_that_says_the_key_stood_needs_no_authentication() {
    for stood in [true, false] {
        let ctx = context();
        let (log, in_tx) = (Log::default(), Arc::new(AtomicBool::new(false)));
        let authentications = Arc::new(AtomicUsize::new(0));
        let counted = authentications.clone();
        let mut keys = MockApiKeyStore::new();
        keys.expect_authenticate().returning(move |_, lease| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(Some(Authenticated {
                context: ctx.clone(),
                lease: match lease {
                    Some(_) => LeaseOutcome::Granted(1000),
                    None => LeaseOutcome::NotAsked,
                },
            }))
        });
        let (state, store) = state(
            Ports {
                keys,
                ..Ports::default()
            },
            &log,
            &in_tx,
        );
        let handler = move |_call: ReadCall| async move {
            let found = if stood {
                Checked::stood("found")
            } else {
                Checked::unconfirmed("found")
            };
            Reply::read(found)
        };
        let app = test::init_service(
            App::new()
                .app_data(state)
                .app_data(store)
                .route("/x", read(handler)),
        )
        .await;
        let first = test::call_service(&app, request("GET").to_request()).await;
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(authentications.load(Ordering::SeqCst), 1, "unseen: first");
        assert_eq!(log.lines(), ["open reads One claim=false"]);
        log.0.lock().unwrap().clear();
        let second = test::call_service(&app, request("GET").to_request()).await;
        assert_eq!(second.status(), StatusCode::OK);
        let body = test::read_body(second).await;
        assert_eq!(&body[..], b"\"found\"");
        if stood {
            assert_eq!(authentications.load(Ordering::SeqCst), 1);
            assert_eq!(log.lines(), ["open reads One claim=true", "key use"]);
        } else {
            assert_eq!(authentications.load(Ordering::SeqCst), 2);
            assert_eq!(log.lines(), ["open reads One claim=true"]);
        }
    }
}
