from enum import StrEnum


class RefundRequestStatus(StrEnum):
    ADDRESS_CONFIRMED = "address_confirmed"
    AWAITING_ADDRESS = "awaiting_address"
    EXPIRED = "expired"
    REFUNDED = "refunded"

    def __str__(self) -> str:
        return str(self.value)
