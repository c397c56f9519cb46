from enum import StrEnum


class CheckoutSessionResourceObject(StrEnum):
    CHECKOUT_SESSION = "checkout.session"

    def __str__(self) -> str:
        return str(self.value)
