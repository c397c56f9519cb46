//! The customer portal (D11, D20): public, per-IP rate limited like `/pay`; the
//! subscription id is the capability. The rules live in the domain's `portal_cancel`;
//! this file parses and renders the JSON endpoints (the page is in `stablepay-web`).

use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use stablepay_domain::ports::SubscriptionRecord;
use stablepay_domain::representation::PublicSubscription;
use stablepay_domain::services::{
    cancel_by_subscriber, cancel_message, portal_merchant_name, portal_subscription, PortalDeps,
};
use stablepay_domain::{Signature, SubscriptionId};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{admit_public, render_json as json};
use crate::state::{AppState, HttpWorkerStore};
use stablepay_domain::ports::Storage;

fn deps<'a>(state: &'a AppState, store: &'a dyn Storage) -> PortalDeps<'a> {
    PortalDeps {
        subscriptions: store.subscriptions(),
        chain: state.chain.as_ref(),
        clock: state.clock.as_ref(),
    }
}

/// The per-IP limit, then the subscription id from the path (unparsable: 404).
fn admit(state: &AppState, req: &HttpRequest) -> Result<SubscriptionId, ApiError> {
    admit_public(state, req)
}

async fn public(
    state: &AppState,
    store: &dyn Storage,
    rec: SubscriptionRecord,
) -> Result<PublicSubscription, ApiError> {
    let name = portal_merchant_name(&rec, &deps(state, store)).await?;
    Ok(PublicSubscription::new(rec, name))
}

#[derive(Serialize)]
struct CancelMessage {
    message: String,
}

pub async fn message(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
) -> HttpResponse {
    json(
        async {
            let id = admit(&state, &req)?;
            let rec = portal_subscription(id, &deps(&state, store.storage())).await?;
            Ok(CancelMessage {
                message: cancel_message(&rec),
            })
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    signature: Option<String>,
}

pub async fn cancel(
    state: Data<AppState>,
    store: Data<HttpWorkerStore>,
    req: HttpRequest,
    body: Bytes,
) -> HttpResponse {
    json(
        async {
            let id = admit(&state, &req)?;
            let parsed: CancelBody = json_body(&body)?;
            let raw = parsed
                .signature
                .ok_or_else(|| ApiError::invalid_field("signature", "is required"))?;
            let signature = Signature::parse(&raw)
                .map_err(|e| ApiError::invalid_field("signature", e.to_string()))?;
            let rec = cancel_by_subscriber(id, &signature, &deps(&state, store.storage())).await?;
            public(&state, store.storage(), rec).await
        }
        .await,
    )
}
