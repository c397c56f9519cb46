//! What each path does with a screening answer (D33). Before money moves (the relayer
//! or the keeper would send it) a listed payer, or one no source could answer for, is refused with
//! nothing sent. After money moved (the payer sent it) it can only be held for the
//! merchant's review; an unknown answer there waits for a source to answer (D17: unknown
//! is never a verdict, and booking it would take it for clear).

use crate::model::{Mode, ScreeningAnswer, ScreeningPath, SourceAnswer};

/// What a path does with a payer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreeningDecision {
    /// Clear (or not screened): go on as without screening.
    Proceed,
    /// Send nothing; tell the payer why.
    Refuse(ScreeningAnswer),
    /// Book the payment held for review (`review.status` pending); the session stays open.
    Hold(ScreeningAnswer),
    /// Book nothing yet; ask again on the next pass.
    Defer,
}

/// All sources' answers as one: listed by any source is listed (the first one names the
/// list); otherwise any unknown is unknown; clear only when every source said clear. No
/// source at all is clear (nothing is configured to screen with).
pub fn combine(answers: &[SourceAnswer]) -> ScreeningAnswer {
    if let Some(listed) = answers
        .iter()
        .find(|a| matches!(a.answer, ScreeningAnswer::Listed { .. }))
    {
        return listed.answer.clone();
    }
    if answers.iter().any(|a| a.answer == ScreeningAnswer::Unknown) {
        return ScreeningAnswer::Unknown;
    }
    ScreeningAnswer::Clear
}

/// The decision table: path × answer.
pub fn decide(path: ScreeningPath, answer: &ScreeningAnswer) -> ScreeningDecision {
    match (answer, path.before_money_moves()) {
        (ScreeningAnswer::Clear, _) => ScreeningDecision::Proceed,
        (_, true) => ScreeningDecision::Refuse(answer.clone()),
        (ScreeningAnswer::Listed { .. }, false) => ScreeningDecision::Hold(answer.clone()),
        (ScreeningAnswer::Unknown, false) => ScreeningDecision::Defer,
    }
}

/// Which modes a deployment screens: live by default wherever a source is configured
/// (D33); test mode when the operator adds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenedModes {
    pub test: bool,
    pub live: bool,
}

impl Default for ScreenedModes {
    fn default() -> Self {
        Self::LIVE
    }
}

impl ScreenedModes {
    pub const LIVE: Self = Self {
        test: false,
        live: true,
    };

    /// `STABLEPAY_SCREENING_MODES`: a comma-separated subset of `test` and `live`
    /// (`none` for neither).
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut modes = Self {
            test: false,
            live: false,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "test" => modes.test = true,
                "live" => modes.live = true,
                "none" => {}
                other => {
                    return Err(format!(
                        "unknown mode {other:?}: use test, live, both separated by a comma, or none"
                    ))
                }
            }
        }
        Ok(modes)
    }

    pub fn screens(self, mode: Mode) -> bool {
        match mode {
            Mode::Test => self.test,
            Mode::Live => self.live,
        }
    }
}

/// A merchant's own choice per mode (D33): `None` takes the deployment's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MerchantScreening {
    pub test: Option<bool>,
    pub live: Option<bool>,
}

impl MerchantScreening {
    pub fn of(self, mode: Mode) -> Option<bool> {
        match mode {
            Mode::Test => self.test,
            Mode::Live => self.live,
        }
    }
}

/// Who decides whether a mode is screened (D33): the operator's defaults
/// (`STABLEPAY_SCREENING_MODES`), the modes it requires (`STABLEPAY_SCREENING_REQUIRED`),
/// which no merchant can turn off, and each merchant's own choice for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreeningPolicy {
    pub defaults: ScreenedModes,
    pub required: ScreenedModes,
}

impl ScreeningPolicy {
    /// Live screened and required, test off unless a merchant turns it on.
    pub const DEFAULT: Self = Self {
        defaults: ScreenedModes::LIVE,
        required: ScreenedModes::LIVE,
    };

    /// Whether a merchant's own choice counts in `mode`.
    pub fn merchant_decides(self, mode: Mode) -> bool {
        !self.required.screens(mode)
    }

    /// Whether `mode` is screened for a merchant that chose `choice`.
    pub fn screens(self, mode: Mode, choice: MerchantScreening) -> bool {
        self.required.screens(mode) || choice.of(mode).unwrap_or(self.defaults.screens(mode))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ScreeningSource;

    fn listed(list: &str) -> ScreeningAnswer {
        ScreeningAnswer::Listed {
            list: list.into(),
            entry: None,
        }
    }

    fn from(name: &str, answer: ScreeningAnswer) -> SourceAnswer {
        SourceAnswer {
            source: ScreeningSource {
                name: name.into(),
                version: None,
            },
            answer,
        }
    }

    #[test]
    fn every_path_and_answer_has_its_decision() {
        use ScreeningDecision::*;
        use ScreeningPath as P;
        let before = [
            P::OneSignature,
            P::X402,
            P::Facilitator,
            P::SubscriptionCharge,
        ];
        let after = [P::Router, P::Deposit, P::Subscribe];
        for path in before {
            assert_eq!(decide(path, &ScreeningAnswer::Clear), Proceed, "{path:?}");
            assert_eq!(decide(path, &listed("ofac")), Refuse(listed("ofac")));
            assert_eq!(
                decide(path, &ScreeningAnswer::Unknown),
                Refuse(ScreeningAnswer::Unknown),
                "{path:?}: unknown is never clear before money moves"
            );
        }
        for path in after {
            assert_eq!(decide(path, &ScreeningAnswer::Clear), Proceed, "{path:?}");
            assert_eq!(decide(path, &listed("ofac")), Hold(listed("ofac")));
            assert_eq!(decide(path, &ScreeningAnswer::Unknown), Defer, "{path:?}");
        }
        assert_eq!(before.len() + after.len(), ScreeningPath::ALL.len());
    }

    #[test]
    fn listed_by_any_source_wins_then_unknown_then_clear() {
        let clear = from("oracle", ScreeningAnswer::Clear);
        let unknown = from("oracle", ScreeningAnswer::Unknown);
        let on_list = from("ofac", listed("ofac"));
        assert_eq!(combine(&[]), ScreeningAnswer::Clear);
        assert_eq!(
            combine(std::slice::from_ref(&clear)),
            ScreeningAnswer::Clear
        );
        assert_eq!(
            combine(&[clear.clone(), unknown.clone()]),
            ScreeningAnswer::Unknown
        );
        assert_eq!(combine(&[unknown, on_list.clone()]), listed("ofac"));
        assert_eq!(combine(&[on_list, clear]), listed("ofac"));
    }

    #[test]
    fn live_is_screened_by_default_and_the_operator_names_the_modes() {
        let default = ScreenedModes::default();
        assert!(default.screens(Mode::Live) && !default.screens(Mode::Test));
        let both = ScreenedModes::parse("test, live").unwrap();
        assert!(both.screens(Mode::Live) && both.screens(Mode::Test));
        let none = ScreenedModes::parse("none").unwrap();
        assert!(!none.screens(Mode::Live) && !none.screens(Mode::Test));
        assert!(ScreenedModes::parse("prod").is_err());
    }

    #[test]
    fn paths_round_trip_by_name() {
        for path in ScreeningPath::ALL {
            assert_eq!(ScreeningPath::parse(path.as_str()), Some(path));
        }
    }

    #[test]
    fn a_required_mode_stays_screened_whatever_the_merchant_chose() {
        let policy = ScreeningPolicy::DEFAULT;
        let off = MerchantScreening {
            test: Some(false),
            live: Some(false),
        };
        let on = MerchantScreening {
            test: Some(true),
            live: Some(true),
        };
        let unset = MerchantScreening::default();
        assert!(policy.screens(Mode::Live, off), "required: not turned off");
        assert!(!policy.merchant_decides(Mode::Live));
        assert!(policy.merchant_decides(Mode::Test));
        assert!(!policy.screens(Mode::Test, unset), "the default: test off");
        assert!(policy.screens(Mode::Test, on), "a merchant turns test on");
        // An operator that screens live by default without requiring it.
        let optional = ScreeningPolicy {
            defaults: ScreenedModes::LIVE,
            required: ScreenedModes::parse("none").unwrap(),
        };
        assert!(optional.screens(Mode::Live, unset));
        assert!(
            !optional.screens(Mode::Live, off),
            "a merchant turns live off"
        );
        assert!(!optional.screens(Mode::Test, unset));
    }
}
