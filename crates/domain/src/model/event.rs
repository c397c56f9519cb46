//! The event catalogue.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    CheckoutSessionCompleted,
    PaymentSucceeded,
    PaymentFailed,
    PaymentRefunded,
    SubscriptionCreated,
    SubscriptionPastDue,
    SubscriptionExpired,
    SubscriptionCanceled,
    RefundRequestAddressConfirmed,
    PaymentRequiresReview,
}

impl EventType {
    pub const ALL: [EventType; 10] = [
        EventType::CheckoutSessionCompleted,
        EventType::PaymentSucceeded,
        EventType::PaymentFailed,
        EventType::PaymentRefunded,
        EventType::SubscriptionCreated,
        EventType::SubscriptionPastDue,
        EventType::SubscriptionExpired,
        EventType::SubscriptionCanceled,
        EventType::RefundRequestAddressConfirmed,
        EventType::PaymentRequiresReview,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::CheckoutSessionCompleted => "checkout.session.completed",
            EventType::PaymentSucceeded => "payment.succeeded",
            EventType::PaymentFailed => "payment.failed",
            EventType::PaymentRefunded => "payment.refunded",
            EventType::SubscriptionCreated => "subscription.created",
            EventType::SubscriptionPastDue => "subscription.past_due",
            EventType::SubscriptionExpired => "subscription.expired",
            EventType::SubscriptionCanceled => "subscription.canceled",
            EventType::RefundRequestAddressConfirmed => "refund_request.address_confirmed",
            EventType::PaymentRequiresReview => "payment.requires_review",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Routing rule 2: an empty filter means every event.
    pub fn is_enabled_in(self, enabled: &[EventType]) -> bool {
        enabled.is_empty() || enabled.contains(&self)
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl utoipa::PartialSchema for EventType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::representation::schema::string_enum(
            EventType::ALL.iter().map(|t| t.as_str()),
            "An event type.",
        )
    }
}

impl utoipa::ToSchema for EventType {}

impl serde::Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
        }
        assert_eq!(EventType::parse("payment.created"), None);
    }

    #[test]
    fn empty_filter_means_all() {
        assert!(EventType::PaymentFailed.is_enabled_in(&[]));
        assert!(!EventType::PaymentFailed.is_enabled_in(&[EventType::PaymentSucceeded]));
    }
}
