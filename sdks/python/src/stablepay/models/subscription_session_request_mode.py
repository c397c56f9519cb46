from enum import StrEnum


class SubscriptionSessionRequestMode(StrEnum):
    SUBSCRIPTION = "subscription"

    def __str__(self) -> str:
        return str(self.value)
