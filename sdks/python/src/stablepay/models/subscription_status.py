from enum import StrEnum


class SubscriptionStatus(StrEnum):
    ACTIVE = "active"
    CANCELED = "canceled"
    EXPIRED = "expired"
    PAST_DUE = "past_due"
    PAUSED = "paused"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
