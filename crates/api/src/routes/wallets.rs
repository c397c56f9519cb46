use actix_web::http::StatusCode;
use serde::Deserialize;
use stablepay_domain::services::{register_wallet, revoke_wallet, verify_wallet};
use stablepay_domain::{Address, ChainId, Signature, WalletId};

use crate::error::ApiError;
use crate::input::json_body;
use crate::request::{InTransaction, ReadCall, ReadReply, Reply, WriteCall};
use stablepay_domain::representation::{List, WalletResource};
use stablepay_domain::Missing;
use stablepay_request_store::Checked;

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RegisterWalletRequest)]
pub(crate) struct RegisterBody {
    #[schema(value_type = Address)]
    address: Option<String>,
    /// Default 8453.
    #[schema(value_type = Option<ChainId>)]
    chain_id: Option<serde_json::Value>,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = VerifyWalletRequest)]
pub(crate) struct VerifyBody {
    /// The EIP-191 signature of `verification.message` (or an ERC-1271 contract wallet's).
    #[schema(schema_with = crate::openapi::fields::signature, required = true)]
    signature: Option<String>,
}

/// Registers a settlement wallet and returns the message to sign (200 when the address was
/// already registered: its current state and a fresh challenge).
#[utoipa::path(post, path = "/api/v1/wallets", operation_id = "register_wallet",
    tag = "Settlement wallets", request_body = RegisterBody,
    responses(
        (status = 201, description = "Registered; sign `verification.message`", body = WalletResource),
        (status = 200, description = "Already registered", body = WalletResource)))]
pub async fn register(call: WriteCall) -> Result<InTransaction, ApiError> {
    let body: RegisterBody = json_body(&call.body)?;
    let mut errors = stablepay_domain::ValidationErrors::default();
    let address = match body.address {
        None => {
            errors.push("address", "is required");
            None
        }
        Some(a) => errors.check("address", Address::parse(&a)),
    };
    let chain = match body.chain_id {
        None | Some(serde_json::Value::Null) => Some(ChainId::Base),
        Some(v) => errors.check(
            "chain_id",
            v.as_u64()
                .and_then(ChainId::from_id)
                .ok_or("must be 8453 (Base) or 84532 (Base Sepolia)"),
        ),
    };
    let (Some(address), Some(chain)) = (address, chain) else {
        return Err(errors.into());
    };
    // Stored in one transaction with its Idempotency-Key's answer.
    Ok(InTransaction::new(move |call: WriteCall| async move {
        let clock = call.state.clock.as_ref();
        let out = register_wallet(
            &call.auth,
            address,
            chain,
            &call.changer(),
            call.ports().wallets(),
            clock,
        )
        .await?;
        let status = if out.created {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        };
        Reply::json(status, &WalletResource::new(out.wallet, out.challenge))
    }))
}

#[utoipa::path(post, path = "/api/v1/wallets/{id}/verify", operation_id = "verify_wallet",
    tag = "Settlement wallets", params(("id" = WalletId, Path)), request_body = VerifyBody,
    responses((status = 200, description = "The verified wallet", body = WalletResource)))]
pub async fn verify(call: WriteCall) -> Result<Reply, ApiError> {
    let id: WalletId = call.path_id()?;
    let body: VerifyBody = json_body(&call.body)?;
    let signature = match body.signature {
        None => return Err(ApiError::invalid_field("signature", "is required")),
        Some(s) => {
            Signature::parse(&s).map_err(|e| ApiError::invalid_field("signature", e.to_string()))?
        }
    };
    let s = &call.state;
    let wallet = verify_wallet(
        &call.auth,
        id,
        &signature,
        &call.changer(),
        &stablepay_domain::services::VerifyWalletDeps {
            wallets: call.ports().wallets(),
            subscriptions: call.ports().subscriptions(),
            chain: s.chain.as_ref(),
            clock: s.clock.as_ref(),
        },
    )
    .await?;
    Reply::ok(&WalletResource::new(wallet, None))
}

#[utoipa::path(get, path = "/api/v1/wallets/{id}", operation_id = "retrieve_wallet",
    tag = "Settlement wallets", params(("id" = WalletId, Path)),
    responses((status = 200, description = "The wallet", body = WalletResource)))]
pub async fn retrieve(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let id: WalletId = call.path_id()?;
    let wallet = call.reads().wallet(id).await?;
    let wallet = wallet.try_map(|w| w.ok_or_else(|| Missing::of(id)))?;
    Reply::read(wallet.map(|w| WalletResource::new(w, None)))
}

#[utoipa::path(get, path = "/api/v1/wallets", operation_id = "list_wallets",
    tag = "Settlement wallets", params(crate::openapi::PageParams),
    responses((status = 200, description = "Wallets, newest first", body = List<WalletResource>)))]
pub async fn list(call: ReadCall) -> Result<Checked<ReadReply>, ApiError> {
    let mut q = call.query()?;
    let page = q.page::<WalletId>()?;
    q.finish()?;
    let wallets = call.reads().wallets(&page).await?;
    Reply::read(wallets.map(|w| List::from_page(w, |w| WalletResource::new(w, None))))
}

#[utoipa::path(delete, path = "/api/v1/wallets/{id}", operation_id = "revoke_wallet",
    tag = "Settlement wallets", params(("id" = WalletId, Path)),
    responses((status = 200, description = "The revoked wallet", body = WalletResource)))]
pub async fn revoke(call: WriteCall) -> Result<Reply, ApiError> {
    let id: WalletId = call.path_id()?;
    let s = &call.state;
    let wallet = revoke_wallet(
        &call.auth,
        id,
        &call.changer(),
        call.ports().wallets(),
        call.ports().subscriptions(),
        s.clock.as_ref(),
    )
    .await?;
    Reply::ok(&WalletResource::new(wallet, None))
}
