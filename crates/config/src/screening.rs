//! Screening payers (D33): which sources a deployment asks and in which modes. Either,
//! both or none of the on-chain oracle (`STABLEPAY_SANCTIONS_ORACLE_<chain>`) and the
//! operator's imported lists (`STABLEPAY_SCREENING_LISTS`, names given at import) can be
//! configured; `STABLEPAY_SCREENING_MODES` (default `live`) says which modes screen by
//! default, and `STABLEPAY_SCREENING_REQUIRED` (default: live, when it is screened) which
//! of them no merchant can turn off; merchants choose for the others (D33).

use std::sync::Arc;

use stablepay_domain::ports::SanctionsSource;
use stablepay_domain::rules::sanctions_list::parse_list_name;
use stablepay_domain::rules::screening::ScreenedModes;
use stablepay_domain::services::PayerScreening;
use stablepay_domain::{Address, ChainId};

use crate::env::{optional, ConfigError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreeningEnv {
    /// The sanctions oracle's address on each chain that has one configured.
    pub oracles: Vec<(ChainId, Address)>,
    /// The imported lists every payer is looked up in, by name.
    pub lists: Vec<String>,
    pub modes: ScreenedModes,
    /// The modes no merchant can turn off.
    pub required: ScreenedModes,
}

impl ScreeningEnv {
    pub fn from_env() -> Result<Self, ConfigError> {
        let mut oracles = Vec::new();
        for chain in ChainId::ALL {
            let var = format!("STABLEPAY_SANCTIONS_ORACLE_{}", chain.id());
            if let Some(v) = optional(&var) {
                let address =
                    Address::parse(v.trim()).map_err(|e| ConfigError::new(&var, e.to_string()))?;
                oracles.push((chain, address));
            }
        }
        const LISTS: &str = "STABLEPAY_SCREENING_LISTS";
        let lists = optional(LISTS)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(|n| parse_list_name(n).map_err(|e| ConfigError::new(LISTS, e)))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        const MODES: &str = "STABLEPAY_SCREENING_MODES";
        let modes = optional(MODES)
            .map(|v| ScreenedModes::parse(&v).map_err(|e| ConfigError::new(MODES, e)))
            .transpose()?
            .unwrap_or_default();
        const REQUIRED: &str = "STABLEPAY_SCREENING_REQUIRED";
        let required = optional(REQUIRED)
            .map(|v| ScreenedModes::parse(&v).map_err(|e| ConfigError::new(REQUIRED, e)))
            .transpose()?
            .unwrap_or(ScreenedModes {
                test: false,
                live: modes.live,
            });
        Ok(Self {
            oracles,
            lists,
            modes,
            required,
        })
    }

    /// The deployment's screening, with the adapters the binary builds: the oracle over
    /// the configured chains (when any), and each named list.
    pub fn screening(
        &self,
        oracle: impl FnOnce(Vec<(ChainId, Address)>) -> Arc<dyn SanctionsSource>,
        list: impl Fn(&str) -> Arc<dyn SanctionsSource>,
    ) -> PayerScreening {
        let mut sources = Vec::new();
        if !self.oracles.is_empty() {
            sources.push(oracle(self.oracles.clone()));
        }
        sources.extend(self.lists.iter().map(|n| list(n)));
        PayerScreening::new(sources, self.modes).with_merchant_choice(self.required)
    }
}
