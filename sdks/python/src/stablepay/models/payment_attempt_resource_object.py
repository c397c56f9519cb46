from enum import StrEnum


class PaymentAttemptResourceObject(StrEnum):
    PAYMENT_ATTEMPT = "payment_attempt"

    def __str__(self) -> str:
        return str(self.value)
