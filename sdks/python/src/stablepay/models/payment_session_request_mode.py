from enum import StrEnum


class PaymentSessionRequestMode(StrEnum):
    PAYMENT = "payment"

    def __str__(self) -> str:
        return str(self.value)
