from enum import StrEnum


class EventType(StrEnum):
    CHECKOUT_SESSION_COMPLETED = "checkout.session.completed"
    PAYMENT_FAILED = "payment.failed"
    PAYMENT_REFUNDED = "payment.refunded"
    PAYMENT_REQUIRES_REVIEW = "payment.requires_review"
    PAYMENT_SUCCEEDED = "payment.succeeded"
    REFUND_REQUEST_ADDRESS_CONFIRMED = "refund_request.address_confirmed"
    SUBSCRIPTION_CANCELED = "subscription.canceled"
    SUBSCRIPTION_CREATED = "subscription.created"
    SUBSCRIPTION_EXPIRED = "subscription.expired"
    SUBSCRIPTION_PAST_DUE = "subscription.past_due"

    def __str__(self) -> str:
        return str(self.value)
