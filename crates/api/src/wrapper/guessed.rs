//! The paths a request by a key this process has seen takes: started with the key's last
//! standing (its guess), checked beside or inside the work, and run again when the key's
//! standing changed.

use std::future::Future;

use actix_web::HttpResponse;
use stablepay_domain::ports::{run_in_transaction, run_vouched, IdempotencyScope, Vouch};
use stablepay_domain::AuthContext;

use super::{authenticate, commits, idempotent, json_response, Atomicity, Call, Reply};
use crate::error::ApiError;
use crate::rate_limit::Budget;
use crate::state::AppState;

/// Where a request started with its key's last standing stands once the key is checked.
pub(super) enum Checked<T> {
    /// The key authenticated as guessed: the work done with the guess stands.
    Agreed(T),
    /// The key's standing changed (its fresh standing): the work done with the guess is void.
    Changed(AuthContext),
}

/// Runs `work`, started with where the key belonged last time (`guess`), beside the key's
/// authentication on the same connection, so their statements travel together (one round
/// trip fewer). `join` polls the authentication first, so its statement is queued first.
/// Errors: the authentication's (401 for a revoked key); `work`'s outcome is then void.
async fn beside_authentication<T>(
    state: &AppState,
    key: [u8; 32],
    guess: &AuthContext,
    work: impl Future<Output = T>,
) -> Result<Checked<T>, ApiError> {
    let (auth, outcome) =
        futures_util::future::join(authenticate(state, key, Budget::Spent), work).await;
    let auth = auth?;
    tracing::Span::current().record("merchant", tracing::field::display(auth.merchant_id));
    Ok(if auth == *guess {
        Checked::Agreed(outcome)
    } else {
        Checked::Changed(auth)
    })
}

/// A read by a key this process has seen, started beside its authentication. A key whose
/// standing changed is served again with the fresh answer. Reads only: nothing a read
/// writes (lazy expiry) depends on who asked.
pub(super) async fn read_with_guess<F, Fut>(
    call: Call,
    key: [u8; 32],
    guess: AuthContext,
    handler: F,
) -> Result<HttpResponse, ApiError>
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let again = call.clone();
    let reply = match beside_authentication(&again.state, key, &guess, handler(call)).await? {
        Checked::Agreed(reply) => reply,
        Checked::Changed(auth) => handler(Call { auth, ..again }).await,
    }?;
    Ok(json_response(reply.status, reply.body))
}

/// A read by a key this process has seen, made on condition that the key still stands as
/// guessed, in the same statement (`RequestScope::vouched`). Unless the read confirms it
/// (the key was revoked, the row is missing, the page is empty), the key is authenticated:
/// a 404 or an empty page costs that one more statement, a revoked key gets its 401, and
/// a key whose standing changed is served again.
pub(super) async fn vouched_read<F, Fut>(
    call: Call,
    key: [u8; 32],
    guess: AuthContext,
    handler: F,
) -> Result<HttpResponse, ApiError>
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let again = call.clone();
    let (vouch, reply) =
        run_vouched(again.state.scope.as_ref(), key, &guess, handler(call)).await?;
    let (auth, reply) = match vouch {
        Vouch::Confirmed => (guess, reply),
        Vouch::Unconfirmed => {
            let auth = authenticate(&again.state, key, Budget::Spent).await?;
            if auth == guess {
                // Keys are only ever revoked, never restored or moved: one that stands as
                // guessed now stood during the read, whose answer (a 404, an empty page)
                // therefore holds.
                (auth, reply)
            } else {
                (auth.clone(), handler(Call { auth, ..again }).await)
            }
        }
    };
    tracing::Span::current().record("merchant", tracing::field::display(auth.merchant_id));
    let reply = reply?;
    Ok(json_response(reply.status, reply.body))
}

/// An idempotent write by a key this process has seen: its transaction starts with the
/// key's last standing, and the authentication travels inside it, beside the key's
/// reservation and the handler's first statements. Nothing commits unless the
/// authentication succeeds and agrees: a revoked key gets 401 and a key whose standing
/// changed is run again with the fresh one, both after a rollback. The handler still runs
/// to its end beside a failed authentication (its statements share the connection, which
/// a dropped future would leave mid-reply); that happens once per process and revocation,
/// since a failed authentication forgets the guess.
pub(super) async fn write_with_guess<F, Fut>(
    call: Call,
    key: [u8; 32],
    guess: AuthContext,
    scope: IdempotencyScope,
    handler: &F,
) -> Result<Checked<Result<HttpResponse, ApiError>>, ApiError>
where
    F: Fn(Call) -> Fut,
    Fut: Future<Output = Result<Reply, ApiError>>,
{
    let state = call.state.clone();
    let work = idempotent(call, scope, handler, Atomicity::Request);
    run_in_transaction(
        state.scope.as_ref(),
        beside_authentication(&state, key, &guess, work),
        |checked| matches!(checked, Ok(Checked::Agreed(Ok(response))) if commits(response)),
    )
    .await?
}
