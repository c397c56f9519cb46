//! `object: "screening_check"` (D33): one answer of one sanctions source about a payer,
//! as stored before the path acted on it — the merchant's proof that it checked.

use serde::Serialize;
use utoipa::ToSchema;

use super::Resource;
use crate::model::{Address, ChainId, ScreeningAnswer, ScreeningCheck, Timestamp};

#[derive(Serialize, ToSchema)]
pub struct ScreeningCheckResource {
    pub object: &'static str,
    pub chain_id: ChainId,
    /// The payer checked.
    pub address: Address,
    /// Where it was checked: `one_signature`, `x402`, `facilitator`, `router`, `deposit`,
    /// `subscribe` or `subscription_charge`.
    #[schema(example = "router")]
    pub path: &'static str,
    /// `sanctions_oracle`, or an imported list's name.
    #[schema(example = "sanctions_oracle")]
    pub source: String,
    /// The imported list's version read; null for the oracle.
    pub list_version: Option<i64>,
    /// `clear`, `listed` or `unknown` (the source did not answer: never taken for clear).
    #[schema(example = "listed")]
    pub answer: &'static str,
    /// For `listed`: the list that names the payer, and its own reference for the entry.
    pub list: Option<String>,
    pub entry: Option<String>,
    pub checked_at: Timestamp,
}

impl Resource for ScreeningCheckResource {
    const OBJECT: &'static str = "screening_check";
}

impl From<ScreeningCheck> for ScreeningCheckResource {
    fn from(c: ScreeningCheck) -> Self {
        let (list, entry) = match &c.answer {
            ScreeningAnswer::Listed { list, entry } => (Some(list.clone()), entry.clone()),
            _ => (None, None),
        };
        Self {
            object: Self::OBJECT,
            chain_id: c.payer.chain,
            address: c.payer.address,
            path: c.path.as_str(),
            source: c.source.name,
            list_version: c.source.version,
            answer: c.answer.as_str(),
            list,
            entry,
            checked_at: c.checked_at,
        }
    }
}
