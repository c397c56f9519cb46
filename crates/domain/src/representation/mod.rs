//! The JSON shapes of the resources (API responses and event `data.object`s), built
//! from domain values. One place, so an event carries exactly what a GET returns.

mod audit_event;
mod balance_transaction;
mod payment_link;
mod price;
mod public_session;
mod public_subscription;
mod reads;
mod refund_request;
pub mod schema;
mod screening_check;
mod session;
mod wallet;
mod webhook_endpoint;

pub use audit_event::*;
pub use balance_transaction::*;
pub use payment_link::*;
pub use price::*;
pub use public_session::*;
pub use public_subscription::*;
pub use reads::*;
pub use refund_request::*;
pub use screening_check::*;
pub use session::*;
pub use wallet::*;
pub use webhook_endpoint::*;

use crate::model::Page;
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

/// A resource of the merchant API: the `object` value it always carries (one place, so
/// the OpenAPI document pins the same string the JSON writes).
pub trait Resource: ToSchema {
    const OBJECT: &'static str;
}

/// The list envelope.
#[derive(Serialize, ToSchema)]
pub struct List<T: Serialize> {
    pub object: &'static str,
    pub data: Vec<T>,
    pub has_more: bool,
}

impl<T: Serialize + ToSchema> Resource for List<T> {
    const OBJECT: &'static str = "list";
}

impl<T: Serialize + ToSchema> List<T> {
    pub fn from_page<D>(page: Page<D>, f: impl FnMut(D) -> T) -> Self {
        Self {
            object: Self::OBJECT,
            data: page.data.into_iter().map(f).collect(),
            has_more: page.has_more,
        }
    }
}

/// Stored JSON text (metadata, payloads) embedded verbatim.
pub fn raw_json(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).unwrap_or_else(|_| {
        RawValue::from_string("{}".to_owned()).unwrap_or_else(|_| unreachable!("{{}} is JSON"))
    })
}
