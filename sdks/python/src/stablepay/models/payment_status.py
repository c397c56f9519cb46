from enum import StrEnum


class PaymentStatus(StrEnum):
    CONFIRMED = "confirmed"
    FAILED = "failed"
    PENDING = "pending"
    REFUNDED = "refunded"

    def __str__(self) -> str:
        return str(self.value)
