from enum import StrEnum


class PaymentLinkResourceObject(StrEnum):
    PAYMENT_LINK = "payment_link"

    def __str__(self) -> str:
        return str(self.value)
