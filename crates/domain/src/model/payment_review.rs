//! A payment held for the merchant's review (D33): its payer was listed by a sanctions
//! source after the money had already moved (a router payment, a deposit), so the service
//! could not refuse it. It is booked, and the session waits for the merchant's decision.

use super::read_models::status_enum;
use super::{ScreeningAnswer, Timestamp};

status_enum!(/// Where a held payment stands: `pending` (the session waits, no completion event),
/// `approved` (completed with the usual events) or `returned` (a refund request to its
/// sender was opened).
ReviewStatus {
    Pending => "pending",
    Approved => "approved",
    Returned => "returned",
});

/// Why a payment is under review and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentReview {
    pub status: ReviewStatus,
    /// For people: which list named the payer, and its entry.
    pub reason: String,
    /// The source that listed the payer (`sanctions_oracle`, or an imported list's name).
    pub source: String,
    /// When the merchant decided; `None` while pending.
    pub decided_at: Option<Timestamp>,
}

impl PaymentReview {
    /// The review a listed answer opens; `None` for any other answer.
    pub fn held(answer: &ScreeningAnswer) -> Option<Self> {
        let ScreeningAnswer::Listed { list, entry } = answer else {
            return None;
        };
        let reason = match entry {
            Some(entry) => format!("the payer is on the sanctions list {list} ({entry})"),
            None => format!("the payer is on the sanctions list {list}"),
        };
        Some(Self {
            status: ReviewStatus::Pending,
            reason,
            source: list.clone(),
            decided_at: None,
        })
    }

    pub fn is_pending(&self) -> bool {
        self.status == ReviewStatus::Pending
    }

    /// This review decided as `status` at `at`.
    pub fn decided(&self, status: ReviewStatus, at: Timestamp) -> Self {
        Self {
            status,
            decided_at: Some(at),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_listed_answer_opens_a_review_naming_its_list() {
        assert_eq!(PaymentReview::held(&ScreeningAnswer::Clear), None);
        assert_eq!(PaymentReview::held(&ScreeningAnswer::Unknown), None);
        let held = PaymentReview::held(&ScreeningAnswer::Listed {
            list: "ofac".into(),
            entry: Some("SDN 1 X".into()),
        })
        .unwrap();
        assert!(held.is_pending());
        assert_eq!(held.source, "ofac");
        assert_eq!(
            held.reason,
            "the payer is on the sanctions list ofac (SDN 1 X)"
        );
        for s in [
            ReviewStatus::Pending,
            ReviewStatus::Approved,
            ReviewStatus::Returned,
        ] {
            assert_eq!(ReviewStatus::parse(s.as_str()), Some(s));
        }
    }
}
