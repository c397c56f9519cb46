from enum import StrEnum


class RefundRequestResourceObject(StrEnum):
    REFUND_REQUEST = "refund_request"

    def __str__(self) -> str:
        return str(self.value)
