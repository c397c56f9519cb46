from enum import StrEnum


class SessionMode(StrEnum):
    PAYMENT = "payment"
    SUBSCRIPTION = "subscription"

    def __str__(self) -> str:
        return str(self.value)
