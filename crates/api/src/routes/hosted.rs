//! The public hosted checkout (no API key; the session id is the capability; per-IP rate
//! limit): the page, the signed payment intent, and the fast-path confirmation. The rules
//! live in the domain's `hosted_checkout`; this file parses and renders.

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use stablepay_domain::ports::Storage;
use stablepay_domain::representation::PublicSession;
use stablepay_domain::services::{
    confirm_payment, public_session, requote_checkout_session, transaction_intent, ConfirmVerdict,
    HostedDeps, Intent, RequoteDeps, Requoted, SettleDeps, SignedIntent,
};
use stablepay_domain::{Address, CheckoutSessionId, TxHash};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{admit_public, render, Reply};
use crate::state::{AppState, HttpWorkerStore};

/// The hosted checkout's rules' dependencies: `store`'s ports, each call on its own.
pub(crate) fn deps<'a>(state: &'a AppState, store: &'a dyn Storage) -> HostedDeps<'a> {
    HostedDeps {
        sessions: store.sessions(),
        wallets: store.wallets(),
        settle: SettleDeps {
            chain: state.chain.as_ref(),
            store: store.settlement(),
            deposits: store.deposits(),
            subscriptions: store.subscriptions(),
            clock: state.clock.as_ref(),
            chains: &state.chains,
            tokens: &state.tokens,
            screening: &state.screening,
            screening_log: store.screening_log(),
        },
        operator_key: state.operator_key.as_ref(),
        intent_ttl_secs: state.intent_ttl_secs,
    }
}

/// The per-IP limit, then the session id from the path (an unparsable id is a 404).
fn admit(state: &AppState, req: &HttpRequest) -> Result<CheckoutSessionId, ApiError> {
    admit_public(state, req)
}

async fn respond<T: Serialize>(result: Result<T, ApiError>) -> HttpResponse {
    render(result.and_then(|body| Reply::ok(&body)))
}

#[derive(Serialize)]
#[serde(untagged)]
enum IntentFields {
    Payment {
        #[serde(rename = "ref")]
        reference: String,
        token: Address,
        recipient: Address,
        net_amount: String,
        fee_amount: String,
        deadline: u64,
    },
    Subscribe {
        plan_id: String,
        #[serde(rename = "ref")]
        reference: String,
        fee_amount: String,
        deadline: u64,
    },
}

#[derive(Serialize)]
struct IntentResponse {
    chain_id: stablepay_domain::ChainId,
    mode: &'static str,
    contract: Address,
    token: Address,
    intent: IntentFields,
    signature: String,
    /// Ready-to-send calldata, so a wallet page needs no ABI code.
    approve_calldata: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pay_calldata: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subscribe_calldata: Option<String>,
    /// What the approval covers: the payment, or `default_periods` × `period_amount`.
    total_amount: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    period_amount: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default_periods: Option<u128>,
}

fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

impl From<SignedIntent> for IntentResponse {
    fn from(signed: SignedIntent) -> Self {
        let allowance = signed.allowance();
        let total = allowance.total;
        let SignedIntent {
            session,
            contract,
            intent,
            signature,
            ..
        } = signed;
        match intent {
            Intent::Payment(intent) => Self {
                chain_id: session.chain,
                mode: "payment",
                contract,
                token: session.token_address,
                intent: IntentFields::Payment {
                    reference: hex0x(&intent.reference),
                    token: intent.token,
                    recipient: intent.recipient,
                    net_amount: intent.net_amount.to_string(),
                    fee_amount: intent.fee_amount.to_string(),
                    deadline: intent.deadline,
                },
                approve_calldata: hex0x(&stablepay_evm::calldata::approve(&contract, total)),
                pay_calldata: Some(hex0x(&stablepay_evm::calldata::pay(&intent, &signature))),
                subscribe_calldata: None,
                signature: signature.to_hex(),
                total_amount: total.to_string(),
                period_amount: None,
                default_periods: None,
            },
            Intent::Subscribe(intent) => Self {
                chain_id: session.chain,
                mode: "subscription",
                contract,
                token: session.token_address,
                intent: IntentFields::Subscribe {
                    plan_id: intent.plan_id.to_string(),
                    reference: hex0x(&intent.reference),
                    fee_amount: intent.fee_amount.to_string(),
                    deadline: intent.deadline,
                },
                approve_calldata: hex0x(&stablepay_evm::calldata::approve(&contract, total)),
                pay_calldata: None,
                subscribe_calldata: Some(hex0x(&stablepay_evm::calldata::subscribe(
                    &intent, &signature,
                ))),
                signature: signature.to_hex(),
                total_amount: total.to_string(),
                period_amount: allowance.per_period.map(|(amount, _)| amount.to_string()),
                default_periods: allowance.per_period.map(|(_, periods)| periods),
            },
        }
    }
}

pub async fn intent(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    respond(
        async {
            let id = admit(&state, &req)?;
            let deps =
                crate::routes::hosted_authorization::deps(&state, deps(&state, store.storage()));
            let signed = transaction_intent(id, &deps).await?;
            Ok(IntentResponse::from(signed))
        }
        .await,
    )
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmBody {
    tx_hash: Option<String>,
}

#[derive(Serialize)]
struct ConfirmResponse {
    #[serde(flatten)]
    session: PublicSession,
    /// `confirmed`, `pending` (below confirmation depth), `not_found` (not seen yet).
    settlement: &'static str,
}

pub async fn confirm(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
    body: Bytes,
) -> HttpResponse {
    respond(
        async {
            let id = admit(&state, &req)?;
            let parsed: ConfirmBody = json_body(&body)?;
            let raw = parsed
                .tx_hash
                .ok_or_else(|| ApiError::invalid_field("tx_hash", "is required"))?;
            let tx = TxHash::parse(&raw)
                .map_err(|e| ApiError::invalid_field("tx_hash", e.to_string()))?;
            let (session, verdict) =
                confirm_payment(id, tx, &deps(&state, store.storage())).await?;
            Ok(ConfirmResponse {
                session: PublicSession::from(&session),
                settlement: match verdict {
                    ConfirmVerdict::Confirmed => "confirmed",
                    ConfirmVerdict::Pending => "pending",
                    ConfirmVerdict::NotSeen => "not_found",
                },
            })
        }
        .await,
    )
    .await
}

pub async fn status(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    respond(
        async {
            let id = admit(&state, &req)?;
            let session = public_session(id, &deps(&state, store.storage())).await?;
            Ok(PublicSession::from(&session))
        }
        .await,
    )
    .await
}

/// `POST /pay/{id}/requote` (D34): a fresh session at a new quote for one whose quote
/// lapsed (the hosted page's button), answered 303 to its hosted page, or to the payment
/// link that opened the session.
pub async fn requote(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    let id = match admit(&state, &req) {
        Ok(id) => id,
        Err(e) => return render(Err(e)),
    };
    let s = &state;
    let store = store.storage();
    let deps = RequoteDeps {
        prepare: s.prepare_session_deps(),
        create: s.create_session_deps(store),
    };
    let base = s.public_url.trim_end_matches('/');
    let to = match requote_checkout_session(id, &deps).await {
        Ok(Requoted::Session(fresh)) => format!("{base}/pay/{}", fresh.id),
        Ok(Requoted::ByLink(link)) => format!("{base}/link/{link}"),
        Err(e) => return render(Err(e.into())),
    };
    stablepay_web::redirect(&to)
}
