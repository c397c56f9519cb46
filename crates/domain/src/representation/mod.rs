//! The JSON shapes of the resources (API responses and event `data.object`s), built
//! from domain values. One place, so an event carries exactly what a GET returns.

mod public_session;
mod public_subscription;
mod reads;
mod session;
mod wallet;
mod webhook_endpoint;

pub use public_session::*;
pub use public_subscription::*;
pub use reads::*;
pub use session::*;
pub use wallet::*;
pub use webhook_endpoint::*;

use crate::model::Page;
use serde::Serialize;
use serde_json::value::RawValue;

/// The list envelope.
#[derive(Serialize)]
pub struct List<T: Serialize> {
    pub object: &'static str,
    pub data: Vec<T>,
    pub has_more: bool,
}

impl<T: Serialize> List<T> {
    pub fn from_page<D>(page: Page<D>, f: impl FnMut(D) -> T) -> Self {
        Self {
            object: "list",
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
