from enum import StrEnum


class SubscriptionResourceObject(StrEnum):
    SUBSCRIPTION = "subscription"

    def __str__(self) -> str:
        return str(self.value)
