//! Screening a payer (D33): every configured source asked, every answer stored as the
//! merchant's proof, and the path's decision from the rules' table.

use std::sync::Arc;

use crate::model::{
    Address, ScreenedPayer, ScreeningAnswer, ScreeningCheck, ScreeningPath, SourceAnswer,
};
use crate::ports::{Clock, SanctionsSource, ScreeningLog, StoreError};
use crate::rules::screening::{combine, decide, ScreenedModes, ScreeningDecision, ScreeningPolicy};

/// Screening nothing (tests of paths that do not screen).
pub static NO_SCREENING: PayerScreening = PayerScreening::none();

/// The deployment's sources and the modes it screens: built once from configuration.
#[derive(Clone)]
pub struct PayerScreening {
    sources: Vec<Arc<dyn SanctionsSource>>,
    modes: ScreenedModes,
    /// The modes no merchant can turn off; `None`: merchants have no say (`modes` is all).
    required: Option<ScreenedModes>,
}

impl std::fmt::Debug for PayerScreening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PayerScreening")
            .field("sources", &self.sources.len())
            .field("modes", &self.modes)
            .field("required", &self.required)
            .finish()
    }
}

impl PayerScreening {
    /// Screens exactly `modes`, whatever merchants chose.
    pub fn new(sources: Vec<Arc<dyn SanctionsSource>>, modes: ScreenedModes) -> Self {
        Self {
            sources,
            modes,
            required: None,
        }
    }

    /// `modes` become defaults: each merchant may turn a mode on or off for itself, except
    /// those `required`.
    pub fn with_merchant_choice(self, required: ScreenedModes) -> Self {
        Self {
            required: Some(required),
            ..self
        }
    }

    /// Nothing configured: every payer proceeds, nothing is stored.
    pub const fn none() -> Self {
        Self {
            sources: Vec::new(),
            modes: ScreenedModes::LIVE,
            required: None,
        }
    }

    /// Who decides which modes are screened; `None` when merchants have no say.
    pub fn policy(&self) -> Option<ScreeningPolicy> {
        self.required.map(|required| ScreeningPolicy {
            defaults: self.modes,
            required,
        })
    }

    pub fn source_count(&self) -> usize {
        self.sources.len()
    }

    pub fn modes(&self) -> ScreenedModes {
        self.modes
    }

    /// Whether a payer of `mode` on `chain` may be asked about at all (a source covers the
    /// chain, and the mode is screened or its merchant may turn it on): the first rule
    /// `screen_payer` applies. `false` means nobody is asked, whoever the merchant.
    pub fn screens(&self, mode: crate::model::Mode, chain: crate::model::ChainId) -> bool {
        // With merchants choosing, any mode may be screened (a required one, or one its
        // merchant turned on).
        (self.required.is_some() || self.modes.screens(mode))
            && self.sources.iter().any(|s| s.covers(chain))
    }

    /// Whether `merchant`'s payers of `mode` on `chain` are screened: [`Self::screens`],
    /// then the merchant's own choice, read only where the operator leaves it one.
    pub async fn screens_merchant(
        &self,
        merchant: crate::model::MerchantId,
        mode: crate::model::Mode,
        chain: crate::model::ChainId,
        log: &dyn ScreeningLog,
    ) -> Result<bool, StoreError> {
        if !self.screens(mode, chain) {
            return Ok(false);
        }
        match self.policy() {
            Some(policy) if policy.merchant_decides(mode) => {
                Ok(policy.screens(mode, log.merchant_screening(merchant).await?))
            }
            _ => Ok(true),
        }
    }
}

pub struct ScreeningDeps<'a> {
    pub screening: &'a PayerScreening,
    pub log: &'a dyn ScreeningLog,
    pub clock: &'a dyn Clock,
}

/// What a path does with `payer`. A payer in a mode the deployment does not screen, or
/// with no source configured, proceeds with nothing stored. Otherwise every source is
/// asked and each answer stored before the decision is acted on (a check that cannot be
/// stored is an error: no proof, no decision).
pub async fn screen_payer(
    payer: ScreenedPayer,
    path: ScreeningPath,
    deps: &ScreeningDeps<'_>,
) -> Result<ScreeningDecision, StoreError> {
    let screening = deps.screening;
    if !screening
        .screens_merchant(payer.merchant_id, payer.mode, payer.chain, deps.log)
        .await?
    {
        return Ok(ScreeningDecision::Proceed);
    }
    let sources: Vec<&Arc<dyn SanctionsSource>> = screening
        .sources
        .iter()
        .filter(|s| s.covers(payer.chain))
        .collect();
    let answers: Vec<SourceAnswer> =
        futures_util::future::join_all(sources.iter().map(|s| s.check(payer.chain, payer.address)))
            .await;
    let checked_at = deps.clock.now();
    let checks: Vec<ScreeningCheck> = answers
        .iter()
        .map(|a| ScreeningCheck {
            payer,
            path,
            source: a.source.clone(),
            answer: a.answer.clone(),
            checked_at,
        })
        .collect();
    deps.log.record_checks(&checks).await?;
    Ok(decide(path, &combine(&answers)))
}

/// Why a payer is refused before the service sends anything (D33).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayerBlocked {
    #[error("the payer {0} is on a sanctions list ({1}); this payment cannot be accepted")]
    Listed(Address, String),
    #[error("the payer {0} could not be screened against sanctions lists just now; nothing was sent, retry in a minute")]
    Unscreened(Address),
}

impl PayerBlocked {
    /// The reason code x402 clients and the facilitator's verdicts carry.
    pub fn reason(&self) -> &'static str {
        match self {
            PayerBlocked::Listed(..) => "payer_sanctioned",
            PayerBlocked::Unscreened(_) => "payer_screening_unavailable",
        }
    }
}

/// Screens `payer` on a path where the service would send the money: `Err(PayerBlocked)`
/// when it must not.
pub async fn screen_before_sending(
    payer: ScreenedPayer,
    path: ScreeningPath,
    deps: &ScreeningDeps<'_>,
) -> Result<Result<(), PayerBlocked>, StoreError> {
    debug_assert!(path.before_money_moves());
    Ok(match screen_payer(payer, path, deps).await? {
        ScreeningDecision::Proceed => Ok(()),
        ScreeningDecision::Refuse(ScreeningAnswer::Listed { list, .. })
        | ScreeningDecision::Hold(ScreeningAnswer::Listed { list, .. }) => {
            Err(PayerBlocked::Listed(payer.address, list))
        }
        ScreeningDecision::Refuse(_) | ScreeningDecision::Hold(_) | ScreeningDecision::Defer => {
            Err(PayerBlocked::Unscreened(payer.address))
        }
    })
}

/// How a payment whose money already moved is booked (D33).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Booking {
    /// As without screening.
    Clear,
    /// Booked, held for the merchant's review: no completion, `payment.requires_review`.
    Held(crate::model::PaymentReview),
    /// Not at depth yet as far as the books go: a source did not answer; asked again on the
    /// next pass.
    Deferred,
}

/// Screens the payer of money that already moved into `session`'s recipient.
pub(crate) async fn screen_booked_payer(
    session: &crate::model::CheckoutSession,
    payer: Address,
    path: ScreeningPath,
    deps: &ScreeningDeps<'_>,
) -> Result<Booking, StoreError> {
    let screened = ScreenedPayer {
        merchant_id: session.merchant_id,
        mode: session.mode,
        chain: session.chain,
        address: payer,
        subject: crate::model::ScreeningSubject::Session(session.id),
    };
    Ok(match screen_payer(screened, path, deps).await? {
        ScreeningDecision::Proceed => Booking::Clear,
        ScreeningDecision::Hold(answer) | ScreeningDecision::Refuse(answer) => {
            match crate::model::PaymentReview::held(&answer) {
                Some(review) => Booking::Held(review),
                None => Booking::Deferred,
            }
        }
        ScreeningDecision::Defer => Booking::Deferred,
    })
}

#[cfg(test)]
mod tests;
