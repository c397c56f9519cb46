from enum import StrEnum


class PaymentResourceObject(StrEnum):
    PAYMENT = "payment"

    def __str__(self) -> str:
        return str(self.value)
